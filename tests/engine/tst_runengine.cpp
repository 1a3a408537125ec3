// The run engine against a scripted harness: every way an evaluation can end is stored with the
// right verdict, the run carries on past crashes and hangs, and resuming counts nothing twice,
// also after the database was read-only for a while.
#include "core/error.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"
#include "fakeresourcesdir.h"
#include "run/faults.h"
#include "run/infrafaults.h"
#include "run/runengine.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace kb;

namespace {
engine::RunSpec spec(const QStringList& models) {
    engine::RunSpec s;
    s.suite = QStringLiteral("sample");
    s.models = models;
    s.settings.device = QStringLiteral("cpu");
    s.settings.timeoutSeconds = 3;
    s.settings.buildTimeoutSeconds = 3;
    s.settings.buildJobs = 2;
    return s;
}

std::map<std::string, db::AttemptRow> byKey(db::Connection& c, db::Id run) {
    std::map<std::string, db::AttemptRow> out;
    for (const auto& a : db::RunRepository(c).attempts(run))
        out[a.modelName + "/" + a.taskKey] = a;
    return out;
}

bool runToEnd(engine::RunEngine& e, db::Id run, int timeoutMs = 60000) {
    QSignalSpy done(&e, &engine::RunEngine::runFinished);
    e.start(run);
    return done.wait(timeoutMs);
}

std::int64_t scalar(db::Connection& c, const std::string& sql) {
    db::Statement q(c, sql);
    q.step();
    return q.int64(0);
}

std::string integrity(db::Connection& c) {
    db::Statement q(c, "PRAGMA integrity_check");
    q.step();
    return q.text(0);
}

QByteArray fileHash(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly)
               ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256)
               : QByteArray();
}

// The child of readOnlyDatabaseFileIsAClearErrorAndUntouched, run in a mount namespace where the
// database's folder is read-only (the tests run as root, for whom file modes mean nothing).
constexpr const char* kReadOnlyChildEnv = "KBSTUDIO_TEST_READONLY_DB";
} // namespace

class TestRunEngine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyOutcomeIsStoredWithItsVerdict() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 3.0")},
                                 {QStringLiteral("m/t2"), QStringLiteral("incorrect")},
                                 {QStringLiteral("m/t3"), QStringLiteral("build_error")},
                                 {QStringLiteral("n/t1"), QStringLiteral("rejected")},
                                 {QStringLiteral("n/t2"), QStringLiteral("segfault")},
                                 {QStringLiteral("n/t3"), QStringLiteral("correct 50")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec({QStringLiteral("m"), QStringLiteral("n")}));
        QSignalSpy finished(&e, &engine::RunEngine::attemptFinished);
        QVERIFY(runToEnd(e, run));
        QCOMPARE(finished.count(), 6);
        auto& c = e.database().connection();
        const auto a = byKey(c, run);
        QCOMPARE(a.at("m/t1").verdict, std::string("correct"));
        QCOMPARE(*a.at("m/t1").speedupEager, 3.0);
        QVERIFY(!a.at("m/t1").suspicious);
        QCOMPARE(a.at("m/t2").verdict, std::string("incorrect"));
        QCOMPARE(a.at("m/t3").verdict, std::string("build_error"));
        QCOMPARE(a.at("n/t1").verdict, std::string("rejected"));
        QCOMPARE(a.at("n/t2").verdict, std::string("runtime_error"));
        QVERIFY2(QString::fromStdString(a.at("n/t2").message).contains(QStringLiteral("SIGSEGV")),
                 a.at("n/t2").message.c_str());
        // 50x over eager is past the plausibility threshold: stored as correct but suspicious.
        QCOMPARE(a.at("n/t3").verdict, std::string("correct"));
        QVERIFY(a.at("n/t3").suspicious);
        for (const auto& [k, row] : a)
            QCOMPARE(row.status, std::string("done"));
        QCOMPARE(db::RunRepository(c).run(run)->status, std::string("finished"));

        const auto rejected = db::EvaluationRepository(c).detail(a.at("n/t1").id);
        QCOMPARE(rejected.findings.size(), size_t(1));
        QCOMPARE(rejected.findings[0].rule, std::string("torch-op-in-forward"));
        const auto good = db::EvaluationRepository(c).detail(a.at("m/t1").id);
        QCOMPARE(good.trials.size(), size_t(5));
        QCOMPARE(good.timing.size(), size_t(2));
        QCOMPARE(good.turns.size(), size_t(1));
        QVERIFY(
            QString::fromStdString(good.turns[0].prompt).contains(QStringLiteral("class Model")));
        QVERIFY(good.candidate && good.candidate->code.find("SCRIPT") != std::string::npos);
    }

    void hangingCandidateTimesOutAndTheRunGoesOn() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("hang")},
                                 {QStringLiteral("m/t2"), QStringLiteral("correct 1.5")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m")});
        s.tasks = {QStringLiteral("t1"), QStringLiteral("t2")};
        s.settings.timeoutSeconds = 1.5;
        s.settings.buildTimeoutSeconds = 1.5;
        const db::Id run = e.createRun(s);
        QVERIFY(runToEnd(e, run));
        const auto a = byKey(e.database().connection(), run);
        QCOMPARE(a.at("m/t1").verdict, std::string("timeout"));
        QVERIFY(QString::fromStdString(a.at("m/t1").message).contains(QStringLiteral("killed")));
        QCOMPARE(a.at("m/t2").verdict, std::string("correct"));
    }

    void harnessFailuresAreOursNotTheCandidates_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("messagePart");
        QTest::newRow("exit code") << QStringLiteral("exit 3") << QStringLiteral("code 3");
        QTest::newRow("garbage") << QStringLiteral("garbage")
                                 << QStringLiteral("not a JSON object");
        QTest::newRow("schema") << QStringLiteral("bad_schema") << QStringLiteral("schema");
        QTest::newRow("no timing")
            << QStringLiteral("correct_without_timing") << QStringLiteral("timing");
    }
    void harnessFailuresAreOursNotTheCandidates() {
        QFETCH(QString, script);
        QFETCH(QString, messagePart);
        test::FakeResources res({{QStringLiteral("m/t1"), script}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m")});
        s.tasks = {QStringLiteral("t1")};
        const db::Id run = e.createRun(s);
        QVERIFY(runToEnd(e, run));
        const auto a = byKey(e.database().connection(), run).at("m/t1");
        QCOMPARE(a.verdict, std::string("harness_error"));
        QCOMPARE(a.status, std::string("failed"));
        QVERIFY2(QString::fromStdString(a.message).contains(messagePart), a.message.c_str());
    }

    // A harness stopped from outside (SIGTERM, as a shutdown or an operator would) is the
    // machinery's fault: retried, then infra_error, never the candidate's runtime_error; a
    // resumed run tries it again, and the attempt ends correct.
    void harnessStoppedFromOutsideIsAnInfrastructureError() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("terminated 2")},
                                 {QStringLiteral("m/t2"), QStringLiteral("correct 2.0")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m")});
        s.tasks = {QStringLiteral("t1"), QStringLiteral("t2")};
        s.settings.retryLimit = 1;
        s.settings.retryBaseSeconds = 0.01;
        const db::Id run = e.createRun(s);
        QVERIFY(runToEnd(e, run));
        auto& c = e.database().connection();
        auto a = byKey(c, run);
        QCOMPARE(a.at("m/t1").verdict, std::string("infra_error"));
        QCOMPARE(a.at("m/t1").status, std::string("failed"));
        QVERIFY2(QString::fromStdString(a.at("m/t1").message).contains(QStringLiteral("SIGTERM")),
                 a.at("m/t1").message.c_str());
        QCOMPARE(a.at("m/t2").verdict, std::string("correct"));
        QCOMPARE(engine::operationalCounts(c, run).infrastructure, 1);
        // Not attempted, so not a failure of the model: the summary counts one sample, not two.
        QCOMPARE(scalar(c, "SELECT sum(samples) FROM task_summaries WHERE run_id = " +
                               std::to_string(run)),
                 std::int64_t(1));

        QVERIFY(runToEnd(e, run)); // resume: the third try is not stopped
        a = byKey(c, run);
        QCOMPARE(a.at("m/t1").verdict, std::string("correct"));
        QCOMPARE(a.at("m/t1").status, std::string("done"));
        QCOMPARE(engine::operationalCounts(c, run).total(), 0);
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts WHERE run_id = " + std::to_string(run)),
                 std::int64_t(2));
    }

    // A candidate cannot dodge its build error by printing "No space left on device": the
    // words count only when the build cache's disk really is full.
    void diskFullNeedsAFullDisk() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("nospace")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m")});
        s.tasks = {QStringLiteral("t1")};
        const db::Id run = e.createRun(s);
        QVERIFY(runToEnd(e, run));
        QCOMPARE(byKey(e.database().connection(), run).at("m/t1").verdict,
                 std::string("build_error"));
        const QString words = QStringLiteral("OSError: [Errno 28] No space left on device");
        QVERIFY(engine::isDiskFullFailure(words, res.path(), 10 * 1024 * 1024));
        QVERIFY(!engine::isDiskFullFailure(words, res.path(), qint64(50) * 1024 * 1024 * 1024));
        QVERIFY(!engine::isDiskFullFailure(QStringLiteral("error: expected ';'"), res.path(), 0));
        QVERIFY(engine::freeBytesAt(res.path() + QStringLiteral("/not/yet/there")) > 0);
    }

    void resumeFinishesOnlyWhatWasLeft() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2")},
                                 {QStringLiteral("m/t2"), QStringLiteral("correct 2")},
                                 {QStringLiteral("m/t3"), QStringLiteral("correct 2")}});
        db::Id run = 0;
        db::Id doneAttempt = 0;
        {
            engine::RunEngine e(res.dbPath());
            e.ensureDemoCatalog();
            run = e.createRun(spec({QStringLiteral("m")}));
            // As a killed engine leaves it: one attempt done, one half-way, one queued.
            db::RunRepository runs(e.database().connection());
            const auto ids = runs.queuedAttemptIds(run);
            doneAttempt = ids[0];
            runs.finishAttempt(ids[0], "done", "incorrect", "finished before the crash");
            runs.setAttemptStatus(ids[1], "evaluating");
            runs.addTurn({0, ids[1], 0, "p", "r", 1, 1, 1, ""});
            runs.setRunStatus(run, "running");
        }
        engine::RunEngine e(res.dbPath());
        QSignalSpy log(&e, &engine::RunEngine::logLine);
        QSignalSpy finished(&e, &engine::RunEngine::attemptFinished);
        QVERIFY(runToEnd(e, run));
        QCOMPARE(finished.count(), 2);
        QVERIFY(log.count() >= 1);
        auto& c = e.database().connection();
        db::RunRepository runs(c);
        QCOMPARE(runs.attempt(doneAttempt)->verdict, std::string("incorrect")); // untouched
        QCOMPARE(runs.statusCounts(run).at("done"), 3);
        db::Statement q(c,
                        "SELECT max(n) FROM (SELECT count(*) AS n FROM turns GROUP BY attempt_id)");
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), 1); // nothing generated twice
        db::Statement ev(c, "SELECT count(*) FROM evaluations");
        QVERIFY(ev.step());
        QCOMPARE(ev.int64(0), 2);
    }

    void cancelStopsEverything() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("hang")},
                                 {QStringLiteral("m/t2"), QStringLiteral("hang")},
                                 {QStringLiteral("m/t3"), QStringLiteral("hang")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m")});
        s.settings.timeoutSeconds = 60;
        const db::Id run = e.createRun(s);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QTRY_VERIFY_WITH_TIMEOUT(e.progressSnapshot().building > 0, 10000);
        e.cancel();
        QCOMPARE(done.count(), 1);
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QCOMPARE(db::RunRepository(e.database().connection()).statusCounts(run).at("cancelled"), 3);
        QVERIFY(!e.isRunning());
    }

    void buildsRunBeforeEvaluationOnTheCpu() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m")});
        s.tasks = {QStringLiteral("t1")};
        const db::Id run = e.createRun(s);
        QVERIFY(runToEnd(e, run));
        const auto a = byKey(e.database().connection(), run).at("m/t1");
        QFile calls(QStringLiteral("%1/test.work/run-%2/attempt-%3/calls.log")
                        .arg(res.path())
                        .arg(run)
                        .arg(a.id));
        QVERIFY2(calls.open(QIODevice::ReadOnly), qPrintable(calls.fileName()));
        QCOMPARE(QString::fromUtf8(calls.readAll()), QStringLiteral("build\nevaluate\n"));
    }

    void policyAndSecretSeedHandling() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m")});
        s.tasks = {QStringLiteral("t1")};
        s.settings.vendorLibraries = QStringLiteral("gemm");
        s.settings.seed = 0x123456789abcdefULL;
        const db::Id run = e.createRun(s);
        QVERIFY(runToEnd(e, run));
        const auto a = byKey(e.database().connection(), run).at("m/t1");
        const QString dir =
            QStringLiteral("%1/test.work/run-%2/attempt-%3").arg(res.path()).arg(run).arg(a.id);
        QFile policy(dir + QStringLiteral("/policy.json"));
        QVERIFY(policy.open(QIODevice::ReadOnly));
        const auto p = QJsonDocument::fromJson(policy.readAll()).object();
        QCOMPARE(p.value(QStringLiteral("allow_vendor_libraries")).toString(),
                 QStringLiteral("gemm"));
        QCOMPARE(p.value(QStringLiteral("allow_torch_ops")).toBool(true), false);
        // The engine writes only the task and the candidate where the candidate runs: the
        // request, with its seed, travels on the harness's standard input.
        QStringList engineFiles = QDir(dir).entryList(QDir::Files);
        engineFiles.removeAll(QStringLiteral("calls.log"));   // written by the scripted harness
        engineFiles.removeAll(QStringLiteral("policy.json")); // written by the scripted harness
        engineFiles.sort();
        QCOMPARE(engineFiles,
                 (QStringList{QStringLiteral("candidate.py"), QStringLiteral("task.py")}));
        // Nor is a result left behind for a later candidate to find.
        QVERIFY(QDir(QStringLiteral("%1/test.work/results").arg(res.path()))
                    .entryList(QDir::Files)
                    .isEmpty());
    }

    void unknownModelOrSuiteIsAClearError() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        try {
            e.createRun(spec({QStringLiteral("nobody")}));
            QFAIL("must throw");
        } catch (const engine::Error& err) {
            QVERIFY(err.message().contains(QStringLiteral("nobody")));
        }
        auto s = spec({QStringLiteral("m")});
        s.suite = QStringLiteral("missing");
        QVERIFY_THROWS_EXCEPTION(engine::Error, e.createRun(s));
        s = spec({QStringLiteral("m")});
        s.levels = {4};
        QVERIFY_THROWS_EXCEPTION(engine::Error, e.createRun(s));
    }

    void readOnlyDatabaseFileIsAClearErrorAndUntouched() {
        const QString bwrap = QStandardPaths::findExecutable(QStringLiteral("bwrap"));
        if (bwrap.isEmpty() ||
            QProcess::execute(bwrap, {QStringLiteral("--dev-bind"), QStringLiteral("/"),
                                      QStringLiteral("/"), QStringLiteral("true")}) != 0)
            QSKIP("needs bubblewrap (bwrap) with user namespaces for a read-only mount");
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2")},
                                 {QStringLiteral("m/t2"), QStringLiteral("incorrect")},
                                 {QStringLiteral("m/t3"), QStringLiteral("correct 3")}});
        db::Id finished = 0;
        db::Id queued = 0;
        {
            engine::RunEngine e(res.dbPath());
            e.ensureDemoCatalog();
            finished = e.createRun(spec({QStringLiteral("m")}));
            QVERIFY(runToEnd(e, finished));
            queued = e.createRun(spec({QStringLiteral("m")}));
        }
        const QByteArray before = fileHash(res.dbPath());
        QVERIFY(!before.isEmpty());
        QVERIFY(!QFile::exists(res.dbPath() + QStringLiteral("-wal")));

        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(kReadOnlyChildEnv), res.dbPath());
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(bwrap, {QStringLiteral("--dev-bind"), QStringLiteral("/"), QStringLiteral("/"),
                            QStringLiteral("--ro-bind"), res.path(), res.path(),
                            QCoreApplication::applicationFilePath(),
                            QStringLiteral("readOnlyDatabaseChild")});
        QVERIFY(child.waitForFinished(60000));
        const QString output = QString::fromUtf8(child.readAll());
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("PASS   : TestRunEngine::readOnlyDatabaseChild")),
                 qPrintable(output));

        // Nothing was written, and the database takes the queued run once it is writable again.
        QCOMPARE(fileHash(res.dbPath()), before);
        engine::RunEngine e(res.dbPath());
        auto& c = e.database().connection();
        QCOMPARE(integrity(c), std::string("ok"));
        QVERIFY(runToEnd(e, queued));
        const auto a = byKey(c, queued);
        QCOMPARE(a.at("m/t1").verdict, std::string("correct"));
        QCOMPARE(a.at("m/t2").verdict, std::string("incorrect"));
        QCOMPARE(a.at("m/t3").verdict, std::string("correct"));
        QCOMPARE(byKey(c, finished).at("m/t3").verdict, std::string("correct"));
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM turns"), 6);
    }

    // Runs only as the child above: opening the read-only database for a run must fail with a
    // clear message, before anything is written; reading it, where SQLite can, still works.
    void readOnlyDatabaseChild() {
        const QString path = qEnvironmentVariable(kReadOnlyChildEnv);
        if (path.isEmpty())
            QSKIP("runs as the child of readOnlyDatabaseFileIsAClearErrorAndUntouched");
        try {
            engine::RunEngine e(path);
            QFAIL("a read-only database must not open for a run");
        } catch (const engine::Error& err) {
            qInfo("%s", qPrintable(err.message()));
            QVERIFY2(err.message().contains(QStringLiteral("read-only")),
                     qPrintable(err.message()));
            QVERIFY2(err.message().contains(path), qPrintable(err.message()));
        }
        try {
            db::Database d(path.toStdString(), db::Database::Access::ReadOnly);
            QCOMPARE(scalar(d.connection(), "SELECT count(*) FROM attempts"), 6);
        } catch (const db::Error& err) {
            // A WAL database without its -shm file cannot be read from a read-only folder.
            qInfo("%s", err.what());
            QVERIFY2(QString::fromUtf8(err.what()).contains(QStringLiteral("folder")), err.what());
        }
    }

    void databaseTurningReadOnlyMidRunStopsCleanlyAndResumes() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2")},
                                 {QStringLiteral("m/t2"), QStringLiteral("correct 2")},
                                 {QStringLiteral("m/t3"), QStringLiteral("correct 2")},
                                 {QStringLiteral("n/t1"), QStringLiteral("correct 2")},
                                 {QStringLiteral("n/t2"), QStringLiteral("correct 2")},
                                 {QStringLiteral("n/t3"), QStringLiteral("correct 2")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec({QStringLiteral("m"), QStringLiteral("n")}));
        auto& c = e.database().connection();
        // Every write of this connection fails from the first finished attempt on, as on a file
        // system remounted read-only.
        QObject::connect(
            &e, &engine::RunEngine::attemptFinished, &e, [&c] { c.exec("PRAGMA query_only = ON"); },
            Qt::SingleShotConnection);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("failed"));
        const QString message = done.at(0).at(2).toString();
        QVERIFY2(message.contains(QStringLiteral("readonly")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("resumes")), qPrintable(message));
        QVERIFY(!e.isRunning());
        QCOMPARE(integrity(c), std::string("ok"));
        const auto stored = scalar(c, "SELECT count(*) FROM attempts WHERE status = 'done'");
        QVERIFY(stored >= 1 && stored < 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), stored);

        // Writable again: the same engine takes the run up and counts everything exactly once.
        c.exec("PRAGMA query_only = OFF");
        done.clear();
        e.start(run);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("finished"));
        for (const auto& [key, a] : byKey(c, run))
            QVERIFY2(a.verdict == "correct",
                     (key + ": " + a.status + " " + a.verdict + " " + a.message).c_str());
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM turns"), 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM candidates"), 6);
        QCOMPARE(integrity(c), std::string("ok"));
    }

    void unusableDatabasePathIsAClearError() {
        QVERIFY_THROWS_EXCEPTION(engine::Error,
                                 engine::RunEngine(QStringLiteral("/nonexistent-dir/x.kbdb")));
        QTemporaryDir dir;
        try {
            engine::RunEngine e(dir.path());
            QFAIL("a folder is not a database");
        } catch (const engine::Error& err) {
            QVERIFY(err.message().contains(QStringLiteral("folder")));
        }
    }
};

QTEST_GUILESS_MAIN(TestRunEngine)
#include "tst_runengine.moc"
