// kbstudio-cli as a user drives it, over a scripted harness so that it runs in seconds:
// errors are readable, a run killed with SIGKILL resumes with every attempt counted once.
#include "clirunner.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "db/sqlite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <csignal>

using namespace kb;

class TestCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_res;
    QProcessEnvironment m_env;

    QString db(const char* name) const {
        return m_res.path() + QStringLiteral("/") + QLatin1String(name);
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

private Q_SLOTS:
    void initTestCase() {
        // Scripted harness and suite; each demo candidate pauses a little so a run can be killed
        // mid-way.
        copyTree(QStringLiteral(KBSTUDIO_FAKE_RESOURCES), m_res.path() + QStringLiteral("/res"));
        QDir().mkpath(m_res.path() + QStringLiteral("/res/demo"));
        QJsonArray candidates;
        for (const char* model : {"demo-a", "demo-b"}) {
            for (const char* task : {"t1", "t2", "t3"}) {
                const QString file =
                    QStringLiteral("%1_%2.py").arg(QLatin1String(model), QLatin1String(task));
                QFile f(m_res.path() + QStringLiteral("/res/demo/") + file);
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write("# SCRIPT: slow 0.4\nclass ModelNew:\n    pass\n");
                candidates.append(
                    QJsonObject{{QStringLiteral("model"), QLatin1String(model)},
                                {QStringLiteral("task"), QLatin1String(task)},
                                {QStringLiteral("file"), file},
                                {QStringLiteral("expect"), QStringLiteral("correct_faster")}});
            }
        }
        QFile m(m_res.path() + QStringLiteral("/res/demo/manifest.json"));
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write(QJsonDocument(
                    QJsonObject{
                        {QStringLiteral("models"),
                         QJsonArray{QJsonObject{{QStringLiteral("id"), QStringLiteral("demo-a")}},
                                    QJsonObject{{QStringLiteral("id"), QStringLiteral("demo-b")}}}},
                        {QStringLiteral("candidates"), candidates}})
                    .toJson());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("KBSTUDIO_RESOURCES"), m_res.path() + QStringLiteral("/res"));
    }

    void versionIsPrinted() {
        const auto r = test::runCli({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("kbstudio-cli ")));
    }

    void usageErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << 2 << QString();
        QTest::newRow("unknown command")
            << QStringList{QStringLiteral("fly")} << 2 << QStringLiteral("unknown command");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("run"), QStringLiteral("--warp")} << 2
            << QStringLiteral("warp");
        QTest::newRow("bad vendor libraries")
            << QStringList{QStringLiteral("run"),     QStringLiteral("--models"),
                           QStringLiteral("demo-a"),  QStringLiteral("--vendor-libraries"),
                           QStringLiteral("mkl"),     QStringLiteral("--db"),
                           QStringLiteral(":memory:")}
            << 2 << QStringLiteral("--vendor-libraries");
        QTest::newRow("bad compile mode")
            << QStringList{QStringLiteral("run"),     QStringLiteral("--models"),
                           QStringLiteral("demo-a"),  QStringLiteral("--compile-mode"),
                           QStringLiteral("fastest"), QStringLiteral("--db"),
                           QStringLiteral(":memory:")}
            << 2 << QStringLiteral("--compile-mode");
        QTest::newRow("bad timing cap")
            << QStringList{QStringLiteral("run"),     QStringLiteral("--models"),
                           QStringLiteral("demo-a"),  QStringLiteral("--max-timing-seconds"),
                           QStringLiteral("0"),       QStringLiteral("--db"),
                           QStringLiteral(":memory:")}
            << 2 << QStringLiteral("--max-timing-seconds");
        QTest::newRow("bad device")
            << QStringList{QStringLiteral("run"),     QStringLiteral("--models"),
                           QStringLiteral("demo-a"),  QStringLiteral("--device"),
                           QStringLiteral("tpu"),     QStringLiteral("--db"),
                           QStringLiteral(":memory:")}
            << 2 << QStringLiteral("--device");
    }
    void usageErrors() {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const auto r = test::runCli(args, m_env);
        QCOMPARE(r.exitCode, code);
        QVERIFY2(r.err.contains(message) || r.out.contains(message), qPrintable(r.err));
    }

    void unreadableDatabaseIsAClearError() {
        const auto r = test::runCli({QStringLiteral("report"), QStringLiteral("--db"),
                                     QStringLiteral("/no/such/dir/x.kbdb")},
                                    m_env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith(QStringLiteral("error: cannot open database")),
                 qPrintable(r.err));
        const auto run = test::runCli({QStringLiteral("run"), QStringLiteral("--models"),
                                       QStringLiteral("demo-a"), QStringLiteral("--db"),
                                       QStringLiteral("/no/such/dir/x.kbdb"),
                                       QStringLiteral("--device"), QStringLiteral("cpu")},
                                      m_env);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QStringLiteral("does not exist")), qPrintable(run.err));
        // A file that is not a database is refused and left as it was.
        QFile junk(db("junk.kbdb"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write(QByteArray(2048, 'j'));
        junk.close();
        const auto j = test::runCli(
            {QStringLiteral("status"), QStringLiteral("--db"), db("junk.kbdb")}, m_env);
        QCOMPARE(j.exitCode, 1);
        QVERIFY2(j.err.contains(QStringLiteral("not a database")), qPrintable(j.err));
        QVERIFY(junk.open(QIODevice::ReadOnly));
        QCOMPARE(junk.readAll(), QByteArray(2048, 'j'));
    }

    void malformedTaskFileIsRefusedWithoutTouchingTheDatabase() {
        QTemporaryDir suite;
        QDir().mkpath(suite.path() + QStringLiteral("/level1"));
        QFile good(suite.path() + QStringLiteral("/level1/1_Good.py"));
        QVERIFY(good.open(QIODevice::WriteOnly));
        good.write("class Model:\n    def forward(self, x):\n        return x\n\ndef "
                   "get_inputs():\n    return []\n\ndef get_init_inputs():\n    return []\n");
        good.close();
        QFile bad(suite.path() + QStringLiteral("/level1/2_Bad.py"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("def forward(x): return x\n");
        bad.close();
        const QString path = db("import.kbdb");
        const auto r = test::runCli({QStringLiteral("suite"), QStringLiteral("import"),
                                     suite.path(), QStringLiteral("--db"), path},
                                    m_env);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("2_Bad.py")) &&
                     r.err.contains(QStringLiteral("class Model")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("nothing was imported")), qPrintable(r.err));
        QVERIFY(!QFile::exists(path));
        const auto ok =
            test::runCli({QStringLiteral("suite"), QStringLiteral("import"), suite.path(),
                          QStringLiteral("--db"), path, QStringLiteral("--skip-invalid"),
                          QStringLiteral("--name"), QStringLiteral("mine")},
                         m_env);
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(ok.out.contains(QStringLiteral("1 tasks")));
    }

    void runReportAndStatus() {
        const QString path = db("run.kbdb");
        const auto r = test::runCli({QStringLiteral("run"), QStringLiteral("--models"),
                                     QStringLiteral("demo-a,demo-b"), QStringLiteral("--db"), path,
                                     QStringLiteral("--device"), QStringLiteral("cpu")},
                                    m_env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY(r.out.contains(QStringLiteral("run 1 finished")));
        QVERIFY(r.out.contains(QStringLiteral("demo-a")) &&
                r.out.contains(QStringLiteral("demo-b")));
        const auto s =
            test::runCli({QStringLiteral("status"), QStringLiteral("--db"), path}, m_env);
        QCOMPARE(s.exitCode, 0);
        QVERIFY2(s.out.contains(QStringLiteral("6 attempts: 6 done")), qPrintable(s.out));
        const auto md = test::runCli({QStringLiteral("report"), QStringLiteral("--db"), path,
                                      QStringLiteral("--format"), QStringLiteral("markdown")},
                                     m_env);
        QCOMPARE(md.exitCode, 0);
        QVERIFY(md.out.contains(QStringLiteral("| demo-a")));
        const auto none = test::runCli({QStringLiteral("report"), QStringLiteral("--db"), path,
                                        QStringLiteral("--run"), QStringLiteral("99")},
                                       m_env);
        QCOMPARE(none.exitCode, 1);
        QVERIFY(none.err.contains(QStringLiteral("no run with id 99")));
    }

    void killedRunResumesWithNothingCountedTwice() {
        const QString path = db("killed.kbdb");
        QProcess p;
        p.setProcessEnvironment(m_env);
        p.start(QStringLiteral(KBSTUDIO_CLI),
                {QStringLiteral("run"), QStringLiteral("--models"), QStringLiteral("demo-a,demo-b"),
                 QStringLiteral("--db"), path, QStringLiteral("--device"), QStringLiteral("cpu"),
                 QStringLiteral("--jobs"), QStringLiteral("1")});
        QVERIFY(p.waitForStarted());
        // Wait until some attempts are done but not all, then kill -9.
        auto doneCount = [&]() -> int {
            try {
                db::Database d(path.toStdString(), db::Database::Access::ReadOnly);
                db::Statement q(d.connection(),
                                "SELECT count(*) FROM attempts WHERE status = 'done'");
                q.step();
                return q.int32(0);
            } catch (const db::Error&) {
                return 0;
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(doneCount() >= 2, 60000);
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished());
        const int before = doneCount();
        QVERIFY2(before < 6, "the run finished before it could be killed");

        const auto r = test::runCli({QStringLiteral("run"), QStringLiteral("--resume"),
                                     QStringLiteral("1"), QStringLiteral("--db"), path},
                                    m_env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        db::Database d(path.toStdString(), db::Database::Access::ReadOnly);
        auto scalar = [&](const char* sql) {
            db::Statement q(d.connection(), sql);
            q.step();
            return q.int64(0);
        };
        QCOMPARE(
            scalar("SELECT count(*) FROM attempts WHERE status = 'done' AND verdict = 'correct'"),
            6);
        QCOMPARE(scalar("SELECT count(*) FROM evaluations"), 6);
        QCOMPARE(scalar("SELECT count(*) FROM turns"), 6);
        QCOMPARE(scalar("SELECT count(*) FROM candidates"), 6);
        QCOMPARE(scalar("SELECT count(*) FROM (SELECT attempt_id FROM evaluations GROUP BY "
                        "attempt_id HAVING count(*) > 1)"),
                 0);
        db::Statement ic(d.connection(), "PRAGMA integrity_check");
        QVERIFY(ic.step());
        QCOMPARE(ic.text(0), std::string("ok"));
        QCOMPARE(db::RunRepository(d.connection()).run(1)->status, std::string("finished"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
