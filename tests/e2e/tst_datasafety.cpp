// A careless user's or a hostile suite's files and databases, through kbstudio-cli (over the
// scripted harness, so that it runs in seconds): task files that are not regular files, too
// large or duplicated; a user's suite named like the built-in one; re-importing a suite after a
// run; two processes opening a fresh database; a database cut short.
#include "clirunner.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "db/sqlite.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace kb;

namespace {

const QByteArray kTask = "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"
                         "    def __init__(self):\n        super().__init__()\n\n"
                         "    def forward(self, x):\n        return torch.relu(x)\n\n"
                         "def get_inputs():\n    return [torch.randn(4)]\n\n"
                         "def get_init_inputs():\n    return []\n";

void writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

void writeManifest(const QString& dir, const QString& name,
                   const QList<QPair<QString, QString>>& tasks) {
    QJsonArray list;
    for (const auto& [id, file] : tasks)
        list.append(QJsonObject{{QStringLiteral("id"), id},
                                {QStringLiteral("level"), 1},
                                {QStringLiteral("file"), file}});
    writeFile(
        dir + QStringLiteral("/suite.json"),
        QJsonDocument(QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("tasks"), list}})
            .toJson());
}

QByteArray fileHash(const QString& p) {
    QFile f(p);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

} // namespace

class TestDataSafety : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QProcessEnvironment m_env;
    int m_counter = 0;

    QString fresh(const QString& what) {
        return m_tmp.path() + QStringLiteral("/%1-%2").arg(what).arg(++m_counter);
    }

    static void copyTree(const QString& from, const QString& to) {
        QDir().mkpath(to);
        for (const auto& e :
             QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (e.isDir())
                copyTree(e.absoluteFilePath(), to + QLatin1Char('/') + e.fileName());
            else
                QFile::copy(e.absoluteFilePath(), to + QLatin1Char('/') + e.fileName());
        }
    }

    test::CliResult cli(const QStringList& args, int timeoutMs = 120000) {
        return test::runCli(args, m_env, timeoutMs);
    }

    // Imports must refuse, quickly, with `expected` in the message and no database left behind.
    void expectRefusedImport(const QString& suiteDir, const QString& expected) {
        const QString dbPath = fresh(QStringLiteral("refused")) + QStringLiteral(".kbdb");
        QElapsedTimer clock;
        clock.start();
        const auto r = cli({QStringLiteral("suite"), QStringLiteral("import"), suiteDir,
                            QStringLiteral("--db"), dbPath},
                           30000);
        QVERIFY2(clock.elapsed() < 25000, "the import blocked");
        QVERIFY2(r.exitCode != 0 && r.exitCode != -1, qPrintable(r.out + r.err));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(dbPath));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        const QString res = m_tmp.path() + QStringLiteral("/res");
        copyTree(QStringLiteral(KBSTUDIO_FAKE_RESOURCES), res);
        QJsonArray candidates;
        for (const char* task : {"t1", "t2", "t3"}) {
            const QString file = QStringLiteral("demo-a_%1.py").arg(QLatin1String(task));
            writeFile(res + QStringLiteral("/demo/") + file, "class ModelNew:\n    pass\n");
            candidates.append(
                QJsonObject{{QStringLiteral("model"), QStringLiteral("demo-a")},
                            {QStringLiteral("task"), QLatin1String(task)},
                            {QStringLiteral("file"), file},
                            {QStringLiteral("expect"), QStringLiteral("correct_faster")}});
        }
        writeFile(res + QStringLiteral("/demo/manifest.json"),
                  QJsonDocument(QJsonObject{{QStringLiteral("models"),
                                             QJsonArray{QJsonObject{{QStringLiteral("id"),
                                                                     QStringLiteral("demo-a")}}}},
                                            {QStringLiteral("candidates"), candidates}})
                      .toJson());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("KBSTUDIO_RESOURCES"), res);
    }

    // Issue: "a FIFO hangs".
    void aFifoAsATaskFileIsRefusedWithoutBlocking() {
        const QString dir = fresh(QStringLiteral("fifo"));
        writeFile(dir + QStringLiteral("/ok.py"), kTask);
        QVERIFY(::mkfifo(QFile::encodeName(dir + QStringLiteral("/pipe.py")).constData(), 0600) ==
                0);
        writeManifest(dir, QStringLiteral("fifo"),
                      {{QStringLiteral("ok"), QStringLiteral("ok.py")},
                       {QStringLiteral("pipe"), QStringLiteral("pipe.py")}});
        expectRefusedImport(
            dir, QStringLiteral("is a FIFO (named pipe); suite files must be regular files"));
        // In a KernelBench folder too (a FIFO is not skipped silently either).
        const QString kb = fresh(QStringLiteral("kbfifo"));
        writeFile(kb + QStringLiteral("/level1/1_Ok.py"), kTask);
        QVERIFY(::mkfifo(QFile::encodeName(kb + QStringLiteral("/level1/2_Pipe.py")).constData(),
                         0600) == 0);
        expectRefusedImport(kb, QStringLiteral("2_Pipe.py: is a FIFO"));
    }

    // Issue: "a manifest naming /dev/zero aborts on out-of-memory".
    void aDeviceAsATaskFileIsRefused() {
        const QString dir = fresh(QStringLiteral("zero"));
        writeFile(dir + QStringLiteral("/ok.py"), kTask);
        writeManifest(dir, QStringLiteral("zero"),
                      {{QStringLiteral("ok"), QStringLiteral("ok.py")},
                       {QStringLiteral("zero"), QStringLiteral("/dev/zero")}});
        expectRefusedImport(dir, QStringLiteral("names a file outside the suite's folder"));
        // A link inside the folder to the device is refused as well.
        const QString linked = fresh(QStringLiteral("zerolink"));
        writeFile(linked + QStringLiteral("/level1/1_Ok.py"), kTask);
        QVERIFY(
            QFile::link(QStringLiteral("/dev/zero"), linked + QStringLiteral("/level1/2_Zero.py")));
        expectRefusedImport(
            linked, QStringLiteral("2_Zero.py: links to a file outside the suite's folder"));
    }

    void aTaskFileAboveTheSizeCapIsRefused() {
        const QString dir = fresh(QStringLiteral("big"));
        writeFile(dir + QStringLiteral("/level1/1_Big.py"),
                  kTask + QByteArray(2 * 1024 * 1024, '#'));
        expectRefusedImport(dir, QStringLiteral("more than the 1.0 MiB a suite file may have"));
    }

    // Issue: "duplicate ids counted twice and stored once".
    void duplicateTaskIdsAreAnError() {
        const QString dir = fresh(QStringLiteral("dup"));
        writeFile(dir + QStringLiteral("/a.py"), kTask);
        writeFile(dir + QStringLiteral("/b.py"), kTask);
        writeManifest(dir, QStringLiteral("dup"),
                      {{QStringLiteral("same"), QStringLiteral("a.py")},
                       {QStringLiteral("same"), QStringLiteral("b.py")}});
        expectRefusedImport(dir, QStringLiteral("task id 'same' is already used by"));
        const QString dbPath = fresh(QStringLiteral("dup")) + QStringLiteral(".kbdb");
        const auto r = cli({QStringLiteral("suite"), QStringLiteral("import"), dir,
                            QStringLiteral("--skip-invalid"), QStringLiteral("--db"), dbPath});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("imported suite 'dup': 1 tasks")),
                 qPrintable(r.out));
    }

    // Issue: "`run` on a user suite named `sample` overwrites the user's task and adds the
    // built-in ones".
    void aUserSuiteNamedSampleKeepsItsTasks() {
        const QString dir = fresh(QStringLiteral("mine"));
        writeFile(dir + QStringLiteral("/t1.py"), kTask);
        writeManifest(dir, QStringLiteral("sample"),
                      {{QStringLiteral("t1"), QStringLiteral("t1.py")}});
        const QString dbPath = fresh(QStringLiteral("mine")) + QStringLiteral(".kbdb");
        auto r = cli({QStringLiteral("suite"), QStringLiteral("import"), dir,
                      QStringLiteral("--db"), dbPath});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = cli({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("sample"),
                 QStringLiteral("--models"), QStringLiteral("demo-a"), QStringLiteral("--db"),
                 dbPath});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        db::Database d(dbPath.toStdString(), db::Database::Access::ReadOnly);
        db::CatalogRepository catalog(d.connection());
        const auto mine = catalog.suiteByName("sample");
        QVERIFY(mine);
        QVERIFY(!catalog.isBuiltinSuite(mine->id));
        const auto tasks = catalog.tasks(mine->id);
        QCOMPARE(tasks.size(), size_t(1));
        QCOMPARE(QByteArray::fromStdString(tasks[0].source), kTask);
        QCOMPARE(tasks[0].version, 1);
        const auto attempts = db::RunRepository(d.connection()).attempts(0);
        QCOMPARE(attempts.size(), size_t(1));
        QCOMPARE(attempts[0].taskId, tasks[0].id);
        // The built-in suite went to its reserved name.
        const auto builtin = catalog.suiteByName("builtin:sample");
        QVERIFY(builtin);
        QVERIFY(catalog.isBuiltinSuite(builtin->id));
        // And a user cannot take the built-in's name back over it.
        r = cli({QStringLiteral("suite"), QStringLiteral("import"), dir, QStringLiteral("--name"),
                 QStringLiteral("builtin:sample"), QStringLiteral("--db"), dbPath});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QStringLiteral("reserved")), qPrintable(r.err));
    }

    // Issue: "re-import rewrites tasks under finished runs".
    void reimportAfterAFinishedRunKeepsWhatTheRunEvaluated() {
        const QString dir = fresh(QStringLiteral("reimport"));
        writeFile(dir + QStringLiteral("/t1.py"), kTask);
        writeManifest(dir, QStringLiteral("mysuite"),
                      {{QStringLiteral("t1"), QStringLiteral("t1.py")}});
        const QString dbPath = fresh(QStringLiteral("reimport")) + QStringLiteral(".kbdb");
        auto r = cli({QStringLiteral("suite"), QStringLiteral("import"), dir,
                      QStringLiteral("--db"), dbPath});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = cli({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("mysuite"),
                 QStringLiteral("--models"), QStringLiteral("demo-a"), QStringLiteral("--db"),
                 dbPath});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        const QByteArray changed = kTask + "\n# changed after the run\n";
        writeFile(dir + QStringLiteral("/t1.py"), changed);
        r = cli({QStringLiteral("suite"), QStringLiteral("import"), dir, QStringLiteral("--db"),
                 dbPath});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("1 new version")), qPrintable(r.out));

        db::Database d(dbPath.toStdString(), db::Database::Access::ReadOnly);
        db::CatalogRepository catalog(d.connection());
        db::RunRepository runs(d.connection());
        const auto all = runs.runs();
        QCOMPARE(all.size(), size_t(1));
        QCOMPARE(all[0].status, std::string("finished"));
        const auto attempts = runs.attempts(all[0].id);
        QCOMPARE(attempts.size(), size_t(1));
        const auto evaluated = catalog.task(attempts[0].taskId);
        QCOMPARE(QByteArray::fromStdString(evaluated->source), kTask);
        const auto current = catalog.tasks(catalog.suiteByName("mysuite")->id);
        QCOMPARE(current.size(), size_t(1));
        QCOMPARE(QByteArray::fromStdString(current[0].source), changed);
        QCOMPARE(current[0].version, 2);
    }

    // Issue: "two `run`s on a fresh database race the schema upgrade".
    void processesOpeningAFreshDatabaseTogetherAllSucceed() {
        const QString dir = fresh(QStringLiteral("together"));
        writeFile(dir + QStringLiteral("/t1.py"), kTask);
        writeManifest(dir, QStringLiteral("together"),
                      {{QStringLiteral("t1"), QStringLiteral("t1.py")}});
        for (int round = 0; round < 3; ++round) {
            const QString dbPath = fresh(QStringLiteral("together")) + QStringLiteral(".kbdb");
            std::vector<std::unique_ptr<QProcess>> procs;
            for (int i = 0; i < 4; ++i) {
                auto p = std::make_unique<QProcess>();
                p->setProcessEnvironment(m_env);
                const QStringList args =
                    i % 2 == 0 ? QStringList{QStringLiteral("run"),
                                             QStringLiteral("--suite"),
                                             QStringLiteral("sample"),
                                             QStringLiteral("--models"),
                                             QStringLiteral("demo-a"),
                                             QStringLiteral("--tasks"),
                                             QStringLiteral("t1"),
                                             QStringLiteral("--db"),
                                             dbPath}
                               : QStringList{QStringLiteral("suite"), QStringLiteral("import"), dir,
                                             QStringLiteral("--db"), dbPath};
                p->start(QStringLiteral(KBSTUDIO_CLI), args);
                procs.push_back(std::move(p));
            }
            for (auto& p : procs) {
                QVERIFY(p->waitForFinished(120000));
                const QString err = QString::fromUtf8(p->readAllStandardError());
                QVERIFY2(
                    p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0,
                    qPrintable(p->arguments().join(QLatin1Char(' ')) + QStringLiteral(": ") + err));
            }
        }
    }

    // Issue: "a database with its tail cut off is opened for writing; a run that evaluated
    // nothing reports finished, exit 0".
    void aDatabaseCutShortIsRefusedAndLeftAsItWas() {
        const QString dbPath = fresh(QStringLiteral("cut")) + QStringLiteral(".kbdb");
        auto r = cli({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("sample"),
                      QStringLiteral("--models"), QStringLiteral("demo-a"), QStringLiteral("--db"),
                      dbPath});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        {
            // Many pages, all in the main file.
            db::Database d(dbPath.toStdString());
            d.connection().exec("CREATE TABLE padding(x TEXT)");
            d.connection().exec(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) "
                "INSERT INTO padding SELECT hex(randomblob(1000)) FROM n");
            d.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        QFile f(dbPath);
        QVERIFY(f.resize(f.size() * 7 / 10));
        const QByteArray before = fileHash(dbPath);
        r = cli({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("sample"),
                 QStringLiteral("--models"), QStringLiteral("demo-a"), QStringLiteral("--db"),
                 dbPath});
        QVERIFY2(r.exitCode != 0 && r.exitCode != -1, qPrintable(r.out + r.err));
        QVERIFY2(r.err.contains(QStringLiteral("is damaged")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral(".recover")), qPrintable(r.err));
        QVERIFY2(!r.out.contains(QStringLiteral("finished")), qPrintable(r.out));
        QCOMPARE(fileHash(dbPath), before);
    }
};

QTEST_GUILESS_MAIN(TestDataSafety)
#include "tst_datasafety.moc"
