// kbstudio-cli import-candidates and suite import of JSON lines, end to end: candidates written
// elsewhere are evaluated on the CPU by the real harness like generated ones, a malformed file
// stores nothing, and the KernelBench export writes one run folder per imported model.

#include "clirunner.h"
#include "db/database.h"
#include "db/runrepository.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {

const QString kFixtures = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/../engine/imports");

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray jsonLine(const QJsonObject& o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

std::int64_t runCount(const QString& dbPath) {
    db::Database d(dbPath.toStdString(), db::Database::Access::ReadOnly);
    db::Statement q(d.connection(), "SELECT count(*) FROM runs");
    q.step();
    return q.int64(0);
}

} // namespace

class TestImportCandidates : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    void write(const QString& name, const QByteArray& bytes) {
        QFile f(path(name));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
    }

private Q_SLOTS:
    void jsonLinesSuiteAndRunFolder() {
        const QString db = path(QStringLiteral("folder.kbdb"));
        auto r = test::runCli({QStringLiteral("suite"), QStringLiteral("import"),
                               kFixtures + QStringLiteral("/suite.jsonl"), QStringLiteral("--name"),
                               QStringLiteral("kb"), QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("imported suite 'kb': 3 tasks")), qPrintable(r.out));
        r = test::runCli({QStringLiteral("import-candidates"),
                          kFixtures + QStringLiteral("/runs/model_x"), QStringLiteral("--suite"),
                          QStringLiteral("kb"), QStringLiteral("--model"),
                          QStringLiteral("model-x"), QStringLiteral("--no-evaluate"),
                          QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("imported 4 candidate(s) of 1 model(s) (model-x)")),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("kbstudio-cli run --resume")), qPrintable(r.out));
        db::Database d(db.toStdString(), db::Database::Access::ReadOnly);
        const auto attempts = db::RunRepository(d.connection()).attempts();
        QCOMPARE(attempts.size(), size_t(4));
        for (const auto& a : attempts)
            QCOMPARE(a.status, std::string("queued"));
    }

    void malformedFileStoresNothing() {
        const QString db = path(QStringLiteral("bad.kbdb"));
        const QByteArray good = jsonLine({{QStringLiteral("task"), QStringLiteral("l1-relu")},
                                          {QStringLiteral("model"), QStringLiteral("m")},
                                          {QStringLiteral("code"), QStringLiteral("x = 1\n")}});
        write(QStringLiteral("bad.jsonl"),
              good + "{\"task\": \n" +
                  jsonLine({{QStringLiteral("task"), QStringLiteral("nope")},
                            {QStringLiteral("model"), QStringLiteral("m")},
                            {QStringLiteral("code"), QStringLiteral("x")}}));
        const auto r = test::runCli({QStringLiteral("import-candidates"),
                                     path(QStringLiteral("bad.jsonl")), QStringLiteral("--suite"),
                                     QStringLiteral("sample"), QStringLiteral("--db"), db});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("bad.jsonl:2: not valid JSON")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("bad.jsonl:3: the suite has no task 'nope'")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("error: 2 problem(s)")) &&
                     r.err.contains(QStringLiteral("nothing was imported")),
                 qPrintable(r.err));
        QCOMPARE(runCount(db), 0);
        const auto usage =
            test::runCli({QStringLiteral("import-candidates"), path(QStringLiteral("bad.jsonl")),
                          QStringLiteral("--db"), db});
        QCOMPARE(usage.exitCode, 2);
        QVERIFY(usage.err.contains(QStringLiteral("--suite is required")));
    }

    // Two models' candidates for two sample tasks, built and evaluated on the CPU.
    void importedCandidatesAreEvaluated() {
        const QString db = path(QStringLiteral("eval.kbdb"));
        const QString relu = QString::fromUtf8(
            readAll(QStringLiteral(KBSTUDIO_SOURCE_RESOURCES "/demo/demo-a/l1-relu.py")));
        QVERIFY(!relu.isEmpty());
        write(QStringLiteral("c.jsonl"),
              jsonLine({{QStringLiteral("task"), QStringLiteral("ReLU")},
                        {QStringLiteral("model"), QStringLiteral("ext-a")},
                        {QStringLiteral("sample"), 0},
                        {QStringLiteral("code"), relu}}) +
                  jsonLine({{QStringLiteral("task"), QStringLiteral("l1-softmax")},
                            {QStringLiteral("model"), QStringLiteral("ext-b")},
                            {QStringLiteral("code"),
                             QStringLiteral("import torch\n\nclass NotTheModel:\n    pass\n")}}));
        const auto r = test::runCli(
            {QStringLiteral("import-candidates"), path(QStringLiteral("c.jsonl")),
             QStringLiteral("--suite"), QStringLiteral("sample"), QStringLiteral("--device"),
             QStringLiteral("cpu"), QStringLiteral("--jobs"), QStringLiteral("2"),
             QStringLiteral("--timing-trials"), QStringLiteral("5"),
             QStringLiteral("--max-timing-seconds"), QStringLiteral("1"), QStringLiteral("--quiet"),
             QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(
            r.out.contains(QStringLiteral("imported 2 candidate(s) of 2 model(s) (ext-a, ext-b)")),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("finished")), qPrintable(r.out));
        {
            db::Database d(db.toStdString(), db::Database::Access::ReadOnly);
            std::map<std::string, db::AttemptRow> a;
            for (const auto& row : db::RunRepository(d.connection()).attempts())
                a[row.modelName] = row;
            QCOMPARE(a.size(), size_t(2));
            QCOMPARE(a.at("ext-a").taskKey, std::string("l1-relu"));
            QCOMPARE(a.at("ext-a").verdict, std::string("correct"));
            QVERIFY(a.at("ext-a").speedupEager.has_value());
            QCOMPARE(a.at("ext-b").status, std::string("done"));
            QVERIFY2(a.at("ext-b").verdict != "correct" && a.at("ext-b").verdict != "pending",
                     a.at("ext-b").verdict.c_str());
        }
        // Every model of the run in KernelBench's layout.
        const QString out = path(QStringLiteral("kb-runs/"));
        const auto e = test::runCli({QStringLiteral("export"), QStringLiteral("--format"),
                                     QStringLiteral("kernelbench"), QStringLiteral("--out"), out,
                                     QStringLiteral("--db"), db});
        QVERIFY2(e.exitCode == 0, qPrintable(e.err));
        const QJsonObject relus =
            QJsonDocument::fromJson(readAll(out + QStringLiteral("ext-a_level1/eval_results.json")))
                .object();
        const auto entry = relus.value(QStringLiteral("l1-relu")).toArray().first().toObject();
        QCOMPARE(entry.value(QStringLiteral("correctness")).toBool(), true);
        QVERIFY(QFile::exists(out + QStringLiteral("ext-b_level1/eval_results.json")));
        QVERIFY(QFile::exists(out + QStringLiteral("kbstudio_runs.json")));
    }
};

QTEST_GUILESS_MAIN(TestImportCandidates)
#include "tst_importcandidates.moc"
