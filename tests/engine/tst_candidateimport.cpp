// Bring-your-own data: candidates generated elsewhere (a KernelBench run folder, JSON lines of
// several models) are matched to the suite's tasks, stored as a run in one transaction and
// evaluated like generated attempts; suites from JSON lines of KernelBench's dataset columns.
// Every malformed input is refused with a readable problem and nothing stored.

#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "db/importrepository.h"
#include "db/runrepository.h"
#include "fakeresourcesdir.h"
#include "imports/candidateimport.h"
#include "run/runengine.h"
#include "suites/jsonlsuite.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace kb;

namespace {

const QString kFixtures = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/imports");

std::int64_t scalar(db::Connection& c, const std::string& sql) {
    db::Statement q(c, sql);
    q.step();
    return q.int64(0);
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    f.write(bytes);
}

QByteArray jsonLine(const QJsonObject& o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

// A database holding the fixture suite, imported from its KernelBench folder.
struct SuiteDb {
    db::Database database{":memory:"};
    db::Id suite = 0;
    std::vector<db::TaskRow> tasks;
    SuiteDb() {
        const auto imported = engine::importSuite(
            database.connection(),
            engine::SuiteLoader::loadFolder(kFixtures + QStringLiteral("/kernelbench"),
                                            QStringLiteral("kb")));
        suite = imported.suiteId;
        tasks = db::CatalogRepository(database.connection()).tasks(suite);
    }
    std::int64_t runs() { return scalar(database.connection(), "SELECT count(*) FROM runs"); }
    std::int64_t stored() {
        return scalar(database.connection(), "SELECT count(*) FROM imported_candidates");
    }
};

// key "model/task/sample" -> code, of a read import
std::map<QString, QString> byKey(const engine::CandidateImport& import) {
    std::map<QString, QString> out;
    for (const auto& c : import.candidates)
        out[QStringLiteral("%1/%2/%3").arg(c.model, c.taskKey).arg(c.sample)] = c.code;
    return out;
}

} // namespace

class TestCandidateImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void kernelBenchRunFolder() {
        SuiteDb s;
        const auto import = engine::readCandidates(kFixtures + QStringLiteral("/runs/model_x"),
                                                   QStringLiteral("model-x"), s.tasks);
        QVERIFY2(import.problems.isEmpty(), qPrintable(import.problems.join(QLatin1Char('\n'))));
        QCOMPARE(import.format, QStringLiteral("kernelbench-run"));
        const auto found = byKey(import);
        // The prompt and KernelBench's own eval_results.json are not candidates.
        QCOMPARE(found.size(), size_t(4));
        QVERIFY(found.at(QStringLiteral("model-x/L1_19/0"))
                    .startsWith(QStringLiteral("# candidate level_1_problem_19_sample_0 ")));
        QVERIFY(found.at(QStringLiteral("model-x/L1_19/1"))
                    .startsWith(QStringLiteral("# candidate level_1_problem_19_sample_1 ")));
        QVERIFY(found.count(QStringLiteral("model-x/L1_23/0")));
        QVERIFY(found.count(QStringLiteral("model-x/L2_5/0")));
        QCOMPARE(import.samplesPerTask(), 2);

        const auto run = engine::storeImportedRun(s.database.connection(), s.suite,
                                                  QStringLiteral("imported"), {}, import);
        QCOMPARE(run.attempts, 4);
        auto& c = s.database.connection();
        const auto attempts = db::RunRepository(c).attempts(run.runId);
        QCOMPARE(attempts.size(), size_t(4)); // exactly the imported ones, no full matrix
        db::ImportRepository repo(c);
        QCOMPARE(repo.importedCount(run.runId), 4);
        for (const auto& a : attempts) {
            QCOMPARE(a.status, std::string("queued"));
            QCOMPARE(a.modelName, std::string("model-x"));
            const auto code = repo.importedCandidate(a.id);
            QVERIFY(code);
            QCOMPARE(QString::fromStdString(code->code),
                     found.at(QStringLiteral("model-x/%1/%2")
                                  .arg(QString::fromStdString(a.taskKey))
                                  .arg(a.sampleIndex)));
            QVERIFY(QString::fromStdString(code->origin).endsWith(QStringLiteral("_kernel.py")));
        }
        const auto model = db::CatalogRepository(c).modelByName("model-x");
        QVERIFY(model);
        QCOMPARE(model->providerKind, std::string("imported"));
        const auto row = db::RunRepository(c).run(run.runId);
        QCOMPARE(row->mode, std::string("imported"));
        const QJsonObject settings =
            QJsonDocument::fromJson(QByteArray::fromStdString(row->settingsJson)).object();
        QCOMPARE(settings.value(QStringLiteral("samples")).toInt(), 2);
        QCOMPARE(settings.value(QStringLiteral("imported"))
                     .toObject()
                     .value(QStringLiteral("format"))
                     .toString(),
                 QStringLiteral("kernelbench-run"));
        QVERIFY(settings.value(QStringLiteral("seed")).toString().toULongLong() !=
                0); // a secret seed, as for any run
    }

    void jsonLinesOfSeveralModels() {
        SuiteDb s;
        const auto import = engine::readCandidates(kFixtures + QStringLiteral("/candidates.jsonl"),
                                                   QStringLiteral("gamma"), s.tasks);
        QVERIFY2(import.problems.isEmpty(), qPrintable(import.problems.join(QLatin1Char('\n'))));
        const auto found = byKey(import);
        QCOMPARE(found.size(), size_t(5));
        QVERIFY(found.at(QStringLiteral("alpha/L1_19/0")).contains(QStringLiteral("by id")));
        QVERIFY(
            found.at(QStringLiteral("alpha/L1_23/0")).contains(QStringLiteral("Softmax by name")));
        QVERIFY(
            found.at(QStringLiteral("beta/L2_5/2")).contains(QStringLiteral("level 2 problem 5")));
        QVERIFY(
            found.at(QStringLiteral("gamma/L1_19/0")).contains(QStringLiteral("default model")));
        // No "sample": the smallest index the model has not used on the task (0 was explicit).
        QVERIFY(
            found.at(QStringLiteral("alpha/L1_19/1")).contains(QStringLiteral("next free sample")));
        QCOMPARE(import.models(), (QStringList{QStringLiteral("alpha"), QStringLiteral("beta"),
                                               QStringLiteral("gamma")}));
        // The origin names the line (blank lines count).
        for (const auto& c : import.candidates) {
            if (c.model == QLatin1String("beta"))
                QVERIFY2(c.origin.endsWith(QStringLiteral("candidates.jsonl:4")),
                         qPrintable(c.origin));
        }
        const auto run = engine::storeImportedRun(s.database.connection(), s.suite,
                                                  QStringLiteral("r"), {}, import);
        QCOMPARE(run.attempts, 5);
        QCOMPARE(scalar(s.database.connection(), "SELECT count(*) FROM run_models WHERE run_id = " +
                                                     std::to_string(run.runId)),
                 3);
        // Importing again adds a second run and re-uses the imported models.
        const auto again = engine::storeImportedRun(s.database.connection(), s.suite,
                                                    QStringLiteral("r2"), {}, import);
        QVERIFY(again.runId != run.runId);
        QCOMPARE(scalar(s.database.connection(),
                        "SELECT count(*) FROM models m JOIN providers p ON p.id = m.provider_id "
                        "WHERE p.kind = 'imported'"),
                 3);
    }

    void malformedInputIsRefusedAndNothingStored_data() {
        QTest::addColumn<QString>("layout"); // jsonl or folder
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("problem");
        const QByteArray ok = jsonLine({{QStringLiteral("task"), QStringLiteral("L1_19")},
                                        {QStringLiteral("model"), QStringLiteral("a")},
                                        {QStringLiteral("code"), QStringLiteral("x = 1\n")}});
        const auto line = [](const QJsonObject& o) { return jsonLine(o); };
        QTest::newRow("bad JSON, with its line number")
            << QStringLiteral("jsonl") << QByteArray(ok + "\n{\"task\": \"L1_19\",\n")
            << QStringLiteral("c.jsonl:3: not valid JSON");
        QTest::newRow("not an object") << QStringLiteral("jsonl") << QByteArray(ok + "[1, 2]\n")
                                       << QStringLiteral("c.jsonl:2: not a JSON object");
        QTest::newRow("no code")
            << QStringLiteral("jsonl")
            << QByteArray(ok + line({{QStringLiteral("task"), QStringLiteral("L1_23")},
                                     {QStringLiteral("model"), QStringLiteral("a")}}))
            << QStringLiteral("c.jsonl:2: no \"code\" string");
        QTest::newRow("unknown task") << QStringLiteral("jsonl")
                                      << line({{QStringLiteral("task"), QStringLiteral("L1_99")},
                                               {QStringLiteral("model"), QStringLiteral("a")},
                                               {QStringLiteral("code"), QStringLiteral("x")}})
                                      << QStringLiteral("c.jsonl:1: the suite has no task 'L1_99'");
        QTest::newRow("unknown problem id")
            << QStringLiteral("jsonl")
            << line({{QStringLiteral("level"), 1},
                     {QStringLiteral("problem_id"), 42},
                     {QStringLiteral("model"), QStringLiteral("a")},
                     {QStringLiteral("code"), QStringLiteral("x")}})
            << QStringLiteral("no task of level 1 with KernelBench problem id 42");
        QTest::newRow("task of another level")
            << QStringLiteral("jsonl")
            << line({{QStringLiteral("task"), QStringLiteral("L1_19")},
                     {QStringLiteral("level"), 2},
                     {QStringLiteral("model"), QStringLiteral("a")},
                     {QStringLiteral("code"), QStringLiteral("x")}})
            << QStringLiteral("task 'L1_19' is of level 1, not 2");
        const QByteArray sampleZero =
            jsonLine({{QStringLiteral("task"), QStringLiteral("L1_19")},
                      {QStringLiteral("model"), QStringLiteral("a")},
                      {QStringLiteral("sample"), 0},
                      {QStringLiteral("code"), QStringLiteral("x = 1\n")}});
        QTest::newRow("the same sample twice")
            << QStringLiteral("jsonl") << QByteArray(sampleZero + sampleZero)
            << QStringLiteral("c.jsonl:2: a / L1_19 / sample 0 was given already by");
        QTest::newRow("negative sample") << QStringLiteral("jsonl")
                                         << line({{QStringLiteral("task"), QStringLiteral("L1_19")},
                                                  {QStringLiteral("sample"), -1},
                                                  {QStringLiteral("model"), QStringLiteral("a")},
                                                  {QStringLiteral("code"), QStringLiteral("x")}})
                                         << QStringLiteral("\"sample\" must be a whole number");
        QTest::newRow("no model anywhere")
            << QStringLiteral("jsonl")
            << line({{QStringLiteral("task"), QStringLiteral("L1_19")},
                     {QStringLiteral("code"), QStringLiteral("x")}})
            << QStringLiteral("no model: the line names none and no --model was given");
        QTest::newRow("NUL in the code")
            << QStringLiteral("jsonl")
            << QByteArray("{\"task\": \"L1_19\", \"model\": \"a\", \"code\": \"x\\u0000y\"}\n")
            << QStringLiteral("NUL bytes");
        QTest::newRow("code too large")
            << QStringLiteral("jsonl")
            << line({{QStringLiteral("task"), QStringLiteral("L1_19")},
                     {QStringLiteral("model"), QStringLiteral("a")},
                     {QStringLiteral("code"), QString(1100000, QLatin1Char('x'))}})
            << QStringLiteral("larger than the 1 MiB a candidate may have");
        QTest::newRow("folder: unknown problem id")
            << QStringLiteral("folder") << QByteArray("level_1_problem_77_sample_0_kernel.py")
            << QStringLiteral(
                   "level_1_problem_77_sample_0_kernel.py: the suite has no task of level 1 "
                   "with KernelBench problem id 77");
        QTest::newRow("folder: a FIFO")
            << QStringLiteral("folder") << QByteArray("fifo")
            << QStringLiteral("is a FIFO (named pipe); candidate files must be regular files");
        QTest::newRow("folder: too large")
            << QStringLiteral("folder") << QByteArray("large")
            << QStringLiteral("more than the 1.0 MiB a candidate file may have");
        QTest::newRow("folder: link out of the folder")
            << QStringLiteral("folder") << QByteArray("link")
            << QStringLiteral("links to a file outside the run folder");
        QTest::newRow("folder: not UTF-8") << QStringLiteral("folder") << QByteArray("latin1")
                                           << QStringLiteral("not valid UTF-8 text");
    }

    void malformedInputIsRefusedAndNothingStored() {
        QFETCH(QString, layout);
        QFETCH(QByteArray, content);
        QFETCH(QString, problem);
        SuiteDb s;
        QTemporaryDir dir;
        QString path;
        if (layout == QLatin1String("jsonl")) {
            path = dir.filePath(QStringLiteral("c.jsonl"));
            writeFile(path, content);
        } else {
            path = dir.filePath(QStringLiteral("run"));
            QDir().mkpath(path);
            // One good kernel next to the bad one: it is not imported either.
            writeFile(path + QStringLiteral("/level_1_problem_19_sample_0_kernel.py"), "x = 1\n");
            const QString bad = path + QStringLiteral("/level_1_problem_23_sample_0_kernel.py");
            if (content == "fifo") {
                QCOMPARE(::mkfifo(QFile::encodeName(bad).constData(), 0600), 0);
            } else if (content == "large") {
                writeFile(bad, QByteArray(2 * 1024 * 1024, 'x'));
            } else if (content == "link") {
                writeFile(dir.filePath(QStringLiteral("elsewhere.py")), "x = 1\n");
                QVERIFY(QFile::link(dir.filePath(QStringLiteral("elsewhere.py")), bad));
            } else if (content == "latin1") {
                writeFile(bad, "# caf\xe9\n");
            } else {
                writeFile(path + QLatin1Char('/') + QString::fromUtf8(content), "x = 1\n");
            }
        }
        const auto import = engine::readCandidates(
            path, layout == QLatin1String("folder") ? QStringLiteral("m") : QString(), s.tasks);
        QVERIFY2(!import.problems.isEmpty(), "no problem reported");
        QVERIFY2(import.problems.join(QLatin1Char('\n')).contains(problem),
                 qPrintable(import.problems.join(QLatin1Char('\n'))));
        QVERIFY_THROWS_EXCEPTION(engine::Error,
                                 engine::storeImportedRun(s.database.connection(), s.suite,
                                                          QStringLiteral("r"), {}, import));
        QCOMPARE(s.runs(), 0);
        QCOMPARE(s.stored(), 0);
        QCOMPARE(scalar(s.database.connection(), "SELECT count(*) FROM providers"), 0);
    }

    void unreadablePathsAreClearErrors_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << QStringLiteral("missing") << QStringLiteral("does not exist");
        QTest::newRow("folder without kernels")
            << QStringLiteral("empty folder") << QStringLiteral("no KernelBench kernel file");
        QTest::newRow("folder without --model")
            << QStringLiteral("no model")
            << QStringLiteral("--model is needed for a KernelBench run folder");
        QTest::newRow("empty JSON-lines file")
            << QStringLiteral("empty file") << QStringLiteral("holds no candidate");
        QTest::newRow("FIFO for a JSON-lines file")
            << QStringLiteral("fifo") << QStringLiteral("candidate files must be regular files");
    }

    void unreadablePathsAreClearErrors() {
        QFETCH(QString, what);
        QFETCH(QString, message);
        SuiteDb s;
        QTemporaryDir dir;
        QString path = dir.filePath(QStringLiteral("x"));
        QString model = QStringLiteral("m");
        if (what == QLatin1String("empty folder")) {
            QDir().mkpath(path);
            writeFile(path + QStringLiteral("/eval_results.json"), "{}");
        } else if (what == QLatin1String("no model")) {
            QDir().mkpath(path);
            writeFile(path + QStringLiteral("/level_1_problem_19_sample_0_kernel.py"), "x = 1\n");
            model.clear();
        } else if (what == QLatin1String("empty file")) {
            writeFile(path, "\n\n");
        } else if (what == QLatin1String("fifo")) {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        }
        try {
            engine::readCandidates(path, model, s.tasks);
            QFAIL("no error");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(message), qPrintable(e.message()));
        }
        QCOMPARE(s.runs(), 0);
    }

    // The repository's own guard: one (model, task, sample) once, tasks of the run's suite only;
    // a refused run leaves nothing behind.
    void repositoryRefusesDuplicatesAtomically() {
        SuiteDb s;
        auto& c = s.database.connection();
        db::CatalogRepository catalog(c);
        const db::Id provider = catalog.upsertProvider({0, "imported", "imported", "", "{}"});
        db::ModelRow m;
        m.providerId = provider;
        m.name = "m";
        const db::Id model = catalog.upsertModel(m);
        db::RunRow run;
        run.suiteId = s.suite;
        run.mode = "imported";
        std::vector<db::ImportedCandidateRow> rows(2);
        for (auto& r : rows) {
            r.modelId = model;
            r.taskId = s.tasks.front().id;
            r.code = "x";
        }
        QVERIFY_THROWS_EXCEPTION(db::Error, db::ImportRepository(c).createImportedRun(run, rows));
        QCOMPARE(s.runs(), 0);
        QCOMPARE(s.stored(), 0);
        const db::Id other = catalog.upsertSuite({0, "other", "", ""});
        db::TaskRow t = s.tasks.front();
        t.id = 0;
        const db::Id foreign = catalog.upsertTasks(other, {t}).front();
        rows.resize(1);
        rows[0].taskId = foreign;
        QVERIFY_THROWS_EXCEPTION(db::Error, db::ImportRepository(c).createImportedRun(run, rows));
        QCOMPARE(s.runs(), 0);
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts"), 0);
    }

    // The imported code is kept apart from what an interrupted attempt loses when queued again.
    void interruptedAttemptsKeepTheirCode() {
        SuiteDb s;
        const auto import = engine::readCandidates(kFixtures + QStringLiteral("/runs/model_x"),
                                                   QStringLiteral("m"), s.tasks);
        const auto run = engine::storeImportedRun(s.database.connection(), s.suite,
                                                  QStringLiteral("r"), {}, import);
        auto& c = s.database.connection();
        db::RunRepository runs(c);
        const db::Id attempt = runs.attempts(run.runId).front().id;
        runs.setAttemptStatus(attempt, "building");
        QCOMPARE(runs.requeueInterrupted(run.runId), 1);
        const auto code = db::ImportRepository(c).importedCandidate(attempt);
        QVERIFY(code);
        QVERIFY(code->code.find("# candidate level_1_problem_19_sample_0") == 0);
    }

    // Imported attempts go through the run engine like generated ones (scripted harness).
    void importedCandidatesAreEvaluated() {
        test::FakeResources res({{QStringLiteral("demo/t1"), QStringLiteral("correct 2")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto& c = e.database().connection();
        db::CatalogRepository catalog(c);
        const auto suite = catalog.suiteByName("sample");
        QVERIFY(suite);
        const QString file = res.path() + QStringLiteral("/c.jsonl");
        const QString correct =
            QStringLiteral("# SCRIPT: correct 2.5\nclass ModelNew:\n    pass\n");
        writeFile(file, jsonLine({{QStringLiteral("task"), QStringLiteral("t1")},
                                  {QStringLiteral("model"), QStringLiteral("ext")},
                                  {QStringLiteral("code"), correct}}) +
                            jsonLine({{QStringLiteral("task"), QStringLiteral("Two")},
                                      {QStringLiteral("model"), QStringLiteral("ext")},
                                      {QStringLiteral("code"),
                                       QStringLiteral("# SCRIPT: build_error\n")}}) +
                            jsonLine({{QStringLiteral("task"), QStringLiteral("t1")},
                                      {QStringLiteral("model"), QStringLiteral("ext")},
                                      {QStringLiteral("sample"), 1},
                                      {QStringLiteral("code"), QStringLiteral("  \n")}}));
        const auto import = engine::readCandidates(file, {}, catalog.tasks(suite->id));
        QVERIFY2(import.problems.isEmpty(), qPrintable(import.problems.join(QLatin1Char('\n'))));
        engine::EvalSettings settings;
        settings.device = QStringLiteral("cpu");
        settings.timeoutSeconds = 5;
        settings.buildTimeoutSeconds = 5;
        const auto stored =
            engine::storeImportedRun(c, suite->id, QStringLiteral("imported"), settings, import);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(stored.runId);
        QVERIFY(done.wait(60000));
        QCOMPARE(db::RunRepository(c).run(stored.runId)->status, std::string("finished"));
        std::map<std::string, db::AttemptRow> a;
        for (const auto& row : db::RunRepository(c).attempts(stored.runId))
            a[row.taskKey + "/" + std::to_string(row.sampleIndex)] = row;
        QCOMPARE(a.size(), size_t(3)); // no attempt for t3: nothing was imported for it
        QCOMPARE(a.at("t1/0").verdict, std::string("correct"));
        QCOMPARE(*a.at("t1/0").speedupEager, 2.5);
        QCOMPARE(a.at("t2/0").verdict, std::string("build_error"));
        QCOMPARE(a.at("t1/1").verdict, std::string("no_candidate"));
        QVERIFY2(QString::fromStdString(a.at("t1/1").message).contains(QStringLiteral("is empty")),
                 a.at("t1/1").message.c_str());
        const auto detail = db::EvaluationRepository(c).detail(a.at("t1/0").id);
        QVERIFY(detail.candidate);
        QCOMPARE(QString::fromStdString(detail.candidate->code), correct);
        QCOMPARE(detail.turns.size(), size_t(1));
        QCOMPARE(detail.turns[0].stopReason, std::string("imported"));
        QVERIFY(
            QString::fromStdString(detail.turns[0].prompt).contains(QStringLiteral("c.jsonl:1")));
        QCOMPARE(detail.turns[0].inputTokens + detail.turns[0].outputTokens, 0);
    }

    void jsonLinesSuite() {
        const auto suite = engine::SuiteLoader::load(kFixtures + QStringLiteral("/suite.jsonl"));
        QVERIFY2(suite.problems.isEmpty(), qPrintable(suite.problems.join(QLatin1Char('\n'))));
        QCOMPARE(suite.name, QStringLiteral("suite"));
        QCOMPARE(suite.tasks.size(), 3);
        // The same ids and names as the same problems imported from KernelBench's folders.
        const auto folder =
            engine::SuiteLoader::loadFolder(kFixtures + QStringLiteral("/kernelbench"));
        QCOMPARE(folder.tasks.size(), suite.tasks.size());
        for (qsizetype i = 0; i < suite.tasks.size(); ++i) {
            QCOMPARE(suite.tasks[i].key, folder.tasks[i].key);
            QCOMPARE(suite.tasks[i].name, folder.tasks[i].name);
            QCOMPARE(suite.tasks[i].level, folder.tasks[i].level);
            QCOMPARE(suite.tasks[i].source, folder.tasks[i].source);
        }
        // Candidates in KernelBench's run layout find the JSONL suite's tasks.
        db::Database database(":memory:");
        const auto imported = engine::importSuite(database.connection(), suite);
        const auto tasks = db::CatalogRepository(database.connection()).tasks(imported.suiteId);
        const auto candidates = engine::readCandidates(kFixtures + QStringLiteral("/runs/model_x"),
                                                       QStringLiteral("m"), tasks);
        QVERIFY(candidates.problems.isEmpty());
        QCOMPARE(candidates.candidates.size(), 4);
    }

    void jsonArraySuite() {
        QTemporaryDir dir;
        QFile lines(kFixtures + QStringLiteral("/suite.jsonl"));
        QVERIFY(lines.open(QIODevice::ReadOnly));
        QJsonArray array;
        for (const QByteArray& line : lines.readAll().split('\n'))
            if (!line.trimmed().isEmpty())
                array.append(QJsonDocument::fromJson(line).object());
        const QString path = dir.filePath(QStringLiteral("level_1.json"));
        writeFile(path, QJsonDocument(array).toJson());
        const auto suite = engine::SuiteLoader::load(path, QStringLiteral("KernelBench L1"));
        QCOMPARE(suite.name, QStringLiteral("KernelBench L1"));
        QCOMPARE(suite.tasks.size(), 3);
        QCOMPARE(suite.tasks[2].key, QStringLiteral("L2_5"));
    }

    void malformedSuiteLines_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("problem");
        QTest::newRow("bad JSON") << QByteArray("{\"level\": 1,")
                                  << QStringLiteral("s.jsonl:2: not valid JSON");
        QTest::newRow("level 7")
            << QByteArray(R"({"level": 7, "problem_id": 3, "name": "3_X", "code": "x"})")
            << QStringLiteral("s.jsonl:2: \"level\" must be a whole number from 1 to 4");
        QTest::newRow("no problem id") << QByteArray(R"({"level": 1, "name": "X", "code": "x"})")
                                       << QStringLiteral("s.jsonl:2: no \"problem_id\"");
        QTest::newRow("no code") << QByteArray(R"({"level": 1, "problem_id": 3, "name": "3_X"})")
                                 << QStringLiteral("s.jsonl:2: no \"code\" string");
        QTest::newRow("not a KernelBench program")
            << QByteArray(R"j({"level": 1, "problem_id": 3, "name": "3_X", "code": "print(1)"})j")
            << QStringLiteral("s.jsonl:2: not a KernelBench-format task");
        QTest::newRow("id used twice")
            << QByteArray("DUPLICATE")
            << QStringLiteral("s.jsonl:2: task id 'L1_19' is already used by");
    }

    void malformedSuiteLines() {
        QFETCH(QByteArray, line);
        QFETCH(QString, problem);
        QFile good(kFixtures + QStringLiteral("/suite.jsonl"));
        QVERIFY(good.open(QIODevice::ReadOnly));
        const QByteArray first = good.readLine();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.jsonl"));
        writeFile(path, first + (line == "DUPLICATE" ? first : line + '\n'));
        const auto suite = engine::SuiteLoader::load(path);
        QCOMPARE(suite.tasks.size(), 1);
        QCOMPARE(suite.problems.size(), 1);
        QVERIFY2(suite.problems.front().contains(problem), qPrintable(suite.problems.front()));
    }

    void unreadableSuiteFiles_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("Parquet") << QByteArray("PAR1\x15\x04\x15")
                                 << QStringLiteral("is a Parquet file");
        QTest::newRow("not UTF-8")
            << QByteArray("{\"code\": \"caf\xe9\"}\n") << QStringLiteral("not valid UTF-8");
        QTest::newRow("no usable task") << QByteArray("{}\n") << QStringLiteral("no usable task");
        QTest::newRow("FIFO") << QByteArray("fifo")
                              << QStringLiteral("suite files must be regular files");
    }

    void unreadableSuiteFiles() {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.jsonl"));
        if (content == "fifo")
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        else
            writeFile(path, content);
        try {
            engine::SuiteLoader::load(path);
            QFAIL("no error");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(message), qPrintable(e.message()));
            if (content.startsWith("PAR1"))
                QVERIFY(e.message().contains(QStringLiteral("docs/import.md")));
        }
    }
};

QTEST_GUILESS_MAIN(TestCandidateImport)
#include "tst_candidateimport.moc"
