// The persistent scheduler against the scripted harness: leases and heartbeats, two engines on
// one database, a lease-expiry takeover, pause/resume, cancellation of a run, a model and a task
// (also from another connection, as `kbstudio-cli pause/cancel` does), retries of a lost worker,
// a full database, priorities and one evaluation per GPU.
#include "core/error.h"
#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "fakeresourcesdir.h"
#include "run/runengine.h"
#include "scheduler/gpupool.h"
#include "scheduler/harnessretry.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>

using namespace kb;

namespace {
engine::RunSpec spec(const QStringList& models) {
    engine::RunSpec s;
    s.suite = QStringLiteral("sample");
    s.models = models;
    s.settings.device = QStringLiteral("cpu");
    s.settings.timeoutSeconds = 10;
    s.settings.buildTimeoutSeconds = 10;
    s.settings.buildJobs = 2;
    s.settings.retryBaseSeconds = 0.05;
    return s;
}

std::int64_t scalar(db::Connection& c, const std::string& sql) {
    db::Statement q(c, sql);
    q.step();
    return q.int64(0);
}

std::map<std::string, db::AttemptRow> byKey(db::Connection& c, db::Id run) {
    std::map<std::string, db::AttemptRow> out;
    for (const auto& a : db::RunRepository(c).attempts(run))
        out[a.modelName + "/" + a.taskKey] = a;
    return out;
}

QString callsOf(const test::FakeResources& res, db::Id run, db::Id attempt,
                const QString& file = QStringLiteral("calls.log")) {
    QFile f(QStringLiteral("%1/test.work/run-%2/attempt-%3/%4")
                .arg(res.path())
                .arg(run)
                .arg(attempt)
                .arg(file));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QMap<QString, QString> allTasks(const QStringList& models, const QString& script) {
    QMap<QString, QString> m;
    for (const auto& model : models)
        for (const auto& t : {QStringLiteral("t1"), QStringLiteral("t2"), QStringLiteral("t3")})
            m.insert(model + QLatin1Char('/') + t, script);
    return m;
}
} // namespace

class TestScheduler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void leasesAreHeldAndRenewedThenReleased() {
        test::FakeResources res(allTasks({QStringLiteral("m")}, QStringLiteral("slow 0.6")));
        engine::RunEngine e(res.dbPath());
        e.setLeaseTiming(100, 5);
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec({QStringLiteral("m")}));
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        auto& c = e.database().connection();
        const std::string owner = e.ownerId().toStdString();
        QCOMPARE(scalar(c, "SELECT count(*) FROM engines WHERE run_id = " + std::to_string(run) +
                               " AND owner = '" + owner + "'"),
                 1);
        QTRY_COMPARE_WITH_TIMEOUT(scalar(c, "SELECT count(*) FROM attempts WHERE status IN "
                                            "('building','evaluating') AND lease_owner = '" +
                                                owner + "'"),
                                  1, 10000);
        // The heartbeat keeps pushing the lease of work in flight ahead of the clock.
        QTRY_VERIFY_WITH_TIMEOUT(scalar(c, "SELECT count(*) FROM attempts WHERE status IN "
                                           "('building','evaluating') AND lease_expires_at > " +
                                               std::to_string(db::LeaseRepository::now() + 4.5)) ==
                                     1,
                                 5000);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("finished"));
        QCOMPARE(scalar(c, "SELECT count(*) FROM engines WHERE run_id IS NOT NULL"), 0);
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts WHERE status = 'done'"), 3);
    }

    void twoEnginesNeverTakeTheSameWork() {
        test::FakeResources res(
            allTasks({QStringLiteral("m"), QStringLiteral("n")}, QStringLiteral("slow 0.2")));
        engine::RunEngine a(res.dbPath());
        a.ensureDemoCatalog();
        const db::Id run1 = a.createRun(spec({QStringLiteral("m")}));
        const db::Id run2 = a.createRun(spec({QStringLiteral("n")}));
        engine::RunEngine b(res.dbPath());
        QSignalSpy doneA(&a, &engine::RunEngine::runFinished);
        QSignalSpy doneB(&b, &engine::RunEngine::runFinished);
        a.start(run1);
        // A live engine holds run 1: a second one is told so, and takes nothing of it.
        try {
            b.start(run1);
            QFAIL("a second engine resumed a run a live engine holds");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(QStringLiteral("being worked on by another engine")),
                     qPrintable(e.message()));
        }
        b.start(run2);
        QVERIFY(doneA.wait(30000) || doneA.count() == 1);
        QTRY_COMPARE_WITH_TIMEOUT(doneB.count(), 1, 30000);
        auto& c = a.database().connection();
        for (const auto& at : db::RunRepository(c).attempts(0)) {
            QCOMPARE(at.status, std::string("done"));
            QCOMPARE(callsOf(res, at.runId, at.id), QStringLiteral("build\nevaluate\n"));
        }
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 6);
        QCOMPARE(scalar(c, "SELECT count(DISTINCT lease_owner) FROM attempts"), 2);
    }

    void expiredLeaseIsTakenOverLiveOneIsNot() {
        test::FakeResources res(allTasks({QStringLiteral("m")}, QStringLiteral("correct 2")));
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec({QStringLiteral("m")}));
        auto& c = e.database().connection();
        db::LeaseRepository leases(c);
        // An engine on another host took the run and one attempt, which it was evaluating.
        const double now = db::LeaseRepository::now();
        leases.registerEngine(
            {0, "elsewhere-1", "other-host", 4242, "serve", run, now, now, std::nullopt});
        const auto ids = db::QueueRepository(c).queuedAttempts(run);
        QVERIFY(leases.acquireAttempt(ids[0], "elsewhere-1", now, 12));
        db::RunRepository(c).setAttemptStatus(ids[0], "evaluating");
        try {
            e.start(run);
            QFAIL("took over a run whose engine is alive");
        } catch (const engine::Error& err) {
            QVERIFY2(err.message().contains(QStringLiteral("other-host")),
                     qPrintable(err.message()));
        }
        QVERIFY(!e.isRunning());
        QCOMPARE(db::RunRepository(c).attempt(ids[0])->status, std::string("evaluating"));
        // It stops heartbeating; once its lease is over the run is taken over and the attempt
        // redone.
        c.exec("UPDATE engines SET heartbeat_at = heartbeat_at - 60 WHERE owner = 'elsewhere-1'");
        c.exec("UPDATE attempts SET lease_expires_at = lease_expires_at - 60 WHERE lease_owner = "
               "'elsewhere-1'");
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        QSignalSpy log(&e, &engine::RunEngine::logLine);
        e.start(run);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("finished"));
        QCOMPARE(
            scalar(c,
                   "SELECT count(*) FROM attempts WHERE status = 'done' AND verdict = 'correct'"),
            3);
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 3);
        QCOMPARE(callsOf(res, run, ids[0]), QStringLiteral("build\nevaluate\n"));
        bool said = false;
        for (const auto& l : log)
            said = said || l.at(0).toString().contains(
                               QStringLiteral("1 interrupted attempt(s) queued again"));
        QVERIFY(said);
    }

    void pauseLetsInFlightFinishAndResumeContinues() {
        test::FakeResources res(
            allTasks({QStringLiteral("m"), QStringLiteral("n")}, QStringLiteral("slow 0.4")));
        engine::RunEngine e(res.dbPath());
        e.setLeaseTiming(100, 5);
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m"), QStringLiteral("n")});
        s.settings.buildJobs = 1;
        const db::Id run = e.createRun(s);
        QSignalSpy paused(&e, &engine::RunEngine::paused);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        auto& c = e.database().connection();
        QTRY_VERIFY_WITH_TIMEOUT(
            scalar(c, "SELECT count(*) FROM attempts WHERE status IN ('building','evaluating')") ==
                1,
            10000);
        // Paused from another connection, as `kbstudio-cli pause` does.
        {
            db::Database other(res.dbPath().toStdString());
            db::RunRepository(other.connection()).setRunStatus(run, "paused");
        }
        QVERIFY(paused.wait(10000));
        QVERIFY(e.isPaused());
        const auto finishedAtPause =
            scalar(c, "SELECT count(*) FROM attempts WHERE status = 'done'");
        QVERIFY(finishedAtPause >= 1 && finishedAtPause < 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts WHERE status IN "
                           "('generating','building','evaluating')"),
                 0);
        QTest::qWait(800); // nothing new starts while paused
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts WHERE status = 'done'"), finishedAtPause);
        QCOMPARE(db::RunRepository(c).run(run)->status, std::string("paused"));
        QCOMPARE(done.count(), 0);
        e.resume();
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("finished"));
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts WHERE status = 'done'"), 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 6);
    }

    void cancelModelTaskAndRun() {
        test::FakeResources res(
            allTasks({QStringLiteral("m"), QStringLiteral("n")}, QStringLiteral("slow 0.3")));
        engine::RunEngine e(res.dbPath());
        e.setLeaseTiming(100, 5);
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec({QStringLiteral("m"), QStringLiteral("n")}));
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QVERIFY(e.cancelModel(QStringLiteral("n")) >= 2);
        QVERIFY(e.cancelTask(QStringLiteral("t3")) >= 1);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("finished"));
        auto& c = e.database().connection();
        const auto a = byKey(c, run);
        QCOMPARE(a.at("m/t1").status, std::string("done"));
        QCOMPARE(a.at("m/t2").status, std::string("done"));
        QCOMPARE(a.at("m/t3").status, std::string("cancelled"));
        QVERIFY(QString::fromStdString(a.at("m/t3").message).contains(QStringLiteral("task t3")));
        for (const char* k : {"n/t1", "n/t2", "n/t3"}) {
            QCOMPARE(a.at(k).status, std::string("cancelled"));
            QCOMPARE(a.at(k).verdict, std::string("pending"));
        }
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 2);

        // The whole run, cancelled from another connection while in flight.
        const db::Id run2 = e.createRun(spec({QStringLiteral("m"), QStringLiteral("n")}));
        done.clear();
        e.start(run2);
        QTRY_VERIFY_WITH_TIMEOUT(
            scalar(c, "SELECT count(*) FROM attempts WHERE run_id = " + std::to_string(run2) +
                          " AND status IN ('building','evaluating')") >= 1,
            10000);
        {
            db::Database other(res.dbPath().toStdString());
            db::QueueRepository(other.connection())
                .cancelAttempts(run2, {}, {}, "cancelled by the user");
            db::RunRepository(other.connection())
                .setRunStatus(run2, "cancelled", "cancelled by the user");
        }
        QVERIFY(done.wait(10000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(!e.isRunning());
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts WHERE run_id = " + std::to_string(run2) +
                               " AND status IN ('queued','generating','building','evaluating')"),
                 0);
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations e JOIN attempts a ON a.id = "
                           "e.attempt_id WHERE a.run_id = " +
                               std::to_string(run2) + " AND a.status = 'cancelled'"),
                 0);
    }

    void lostWorkerIsRetriedThenRecorded() {
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("lost 2")},
                                 {QStringLiteral("m/t2"), QStringLiteral("lost 99")},
                                 {QStringLiteral("m/t3"), QStringLiteral("incorrect")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec({QStringLiteral("m")}));
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QVERIFY(done.wait(30000));
        auto& c = e.database().connection();
        const auto a = byKey(c, run);
        QCOMPARE(a.at("m/t1").verdict, std::string("correct"));
        QCOMPARE(db::QueueRepository(c).tries(a.at("m/t1").id), 2);
        // a worker lost again and again is the infrastructure's failure, not the candidate's
        QCOMPARE(a.at("m/t2").verdict, std::string("infra_error"));
        QCOMPARE(a.at("m/t2").status, std::string("failed"));
        QVERIFY2(QString::fromStdString(a.at("m/t2").message)
                     .contains(QStringLiteral("gave up after 3 retries")),
                 a.at("m/t2").message.c_str());
        QVERIFY2(QString::fromStdString(a.at("m/t2").message)
                     .contains(QStringLiteral("lost the harness worker")),
                 a.at("m/t2").message.c_str());
        QCOMPARE(db::QueueRepository(c).tries(a.at("m/t2").id), 3);
        // The candidate's own failure is never retried.
        QCOMPARE(a.at("m/t3").verdict, std::string("incorrect"));
        QCOMPARE(db::QueueRepository(c).tries(a.at("m/t3").id), 0);
        QCOMPARE(callsOf(res, run, a.at("m/t3").id), QStringLiteral("build\nevaluate\n"));
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 3);
    }

    void backoffGrowsWithJitter() {
        engine::HarnessRetryPolicy p;
        p.baseSeconds = 1;
        p.maxSeconds = 5;
        for (int i = 0; i < 50; ++i) {
            const double d1 = p.delaySeconds(1), d3 = p.delaySeconds(3), d9 = p.delaySeconds(9);
            QVERIFY(d1 >= 0.5 && d1 <= 1.0);
            QVERIFY(d3 >= 2.0 && d3 <= 4.0);
            QVERIFY(d9 >= 2.5 && d9 <= 5.0);
        }
    }

    void fullDatabaseStopsCleanlyAndResumesLater() {
        test::FakeResources res(
            allTasks({QStringLiteral("m"), QStringLiteral("n")}, QStringLiteral("correct 2")));
        db::Id run = 0;
        {
            engine::RunEngine e(res.dbPath());
            e.ensureDemoCatalog();
            run = e.createRun(spec({QStringLiteral("m"), QStringLiteral("n")}));
            auto& c = e.database().connection();
            // No room for one more page: the first evaluation cannot be stored.
            c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
            c.exec("PRAGMA max_page_count = " + std::to_string(scalar(c, "PRAGMA page_count")));
            QSignalSpy done(&e, &engine::RunEngine::runFinished);
            e.start(run);
            QVERIFY(done.wait(30000));
            QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("failed"));
            const QString message = done.at(0).at(2).toString();
            QVERIFY2(message.contains(QStringLiteral("database or disk is full")),
                     qPrintable(message));
            QVERIFY(!e.isRunning());
        }
        db::Database check(res.dbPath().toStdString());
        auto& c = check.connection();
        {
            db::Statement ic(c, "PRAGMA integrity_check");
            QVERIFY(ic.step());
            QCOMPARE(ic.text(0), std::string("ok"));
        }
        // Every attempt counted done has its evaluation; nothing half-stored.
        QCOMPARE(scalar(c, "SELECT count(*) FROM attempts WHERE status = 'done'"),
                 scalar(c, "SELECT count(*) FROM evaluations"));
        QVERIFY(scalar(c, "SELECT count(*) FROM attempts WHERE status = 'done'") < 6);
        // Writable again: another engine resumes at once and counts everything exactly once.
        engine::RunEngine again(res.dbPath());
        QSignalSpy done(&again, &engine::RunEngine::runFinished);
        again.start(run);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("finished"));
        for (const auto& a : db::RunRepository(c).attempts(run))
            QVERIFY2(a.verdict == "correct",
                     (a.status + " " + a.verdict + " " + a.message).c_str());
        QCOMPARE(scalar(c, "SELECT count(*) FROM evaluations"), 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM turns"), 6);
        QCOMPARE(scalar(c, "SELECT count(*) FROM candidates"), 6);
    }

    void priorityOrdersRunsThenAttempts() {
        test::FakeResources res(
            allTasks({QStringLiteral("m"), QStringLiteral("n")}, QStringLiteral("correct 2")));
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        const db::Id low = e.createRun(spec({QStringLiteral("m")}));
        const db::Id high = e.createRun(spec({QStringLiteral("n")}));
        const db::Id mid = e.createRun(spec({QStringLiteral("m")}));
        auto& c = e.database().connection();
        db::QueueRepository q(c);
        q.setRunPriority(high, 10);
        q.setRunPriority(mid, 5);
        const auto runs = db::LeaseRepository(c).runnableRuns(db::LeaseRepository::now(), 12);
        QCOMPARE(runs, (std::vector<db::Id>{high, mid, low}));
        QCOMPARE(q.setAttemptPriority(low, 3, {}, "t3"), 1);
        const auto order = q.queuedAttempts(low);
        QCOMPARE(db::RunRepository(c).attempt(order.front())->taskKey, std::string("t3"));
        // A run a live engine holds is not offered to another.
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(high);
        const auto offered = db::LeaseRepository(c).runnableRuns(db::LeaseRepository::now(), 12);
        QCOMPARE(offered, (std::vector<db::Id>{mid, low}));
        QVERIFY(done.wait(30000));
    }

    void oneEvaluationPerGpuAtATime() {
        qputenv("KBSTUDIO_GPUS", "0,1");
        test::FakeResources res(
            allTasks({QStringLiteral("m"), QStringLiteral("n")}, QStringLiteral("correct 2")));
        // The same scripted candidates serve CUDA runs.
        const QDir demo(res.path() + QStringLiteral("/demo"));
        QVERIFY(demo.mkpath(QStringLiteral("cuda")));
        for (const auto& f : demo.entryList(QDir::Files))
            QVERIFY(QFile::copy(demo.filePath(f), demo.filePath(QStringLiteral("cuda/") + f)));
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = spec({QStringLiteral("m"), QStringLiteral("n")});
        s.settings.device = QStringLiteral("cuda");
        s.settings.buildJobs = 3;
        const db::Id run = e.createRun(s);
        QSignalSpy progress(&e, &engine::RunEngine::progress);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QVERIFY(done.wait(30000));
        qunsetenv("KBSTUDIO_GPUS");
        struct Span {
            int gpu;
            double start, end;
        };
        QList<Span> spans;
        for (const auto& a : db::RunRepository(e.database().connection()).attempts(run)) {
            QVERIFY2(a.verdict == "correct", a.message.c_str());
            for (const auto& line : callsOf(res, run, a.id, QStringLiteral("gpu.log"))
                                        .split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
                const auto f = line.split(QLatin1Char(' '));
                spans.append({f[0].toInt(), f[1].toDouble(), f[2].toDouble()});
            }
        }
        QCOMPARE(spans.size(), 6);
        QSet<int> used;
        bool overlapAcrossGpus = false;
        for (int i = 0; i < spans.size(); ++i) {
            used.insert(spans[i].gpu);
            for (int j = i + 1; j < spans.size(); ++j) {
                const bool overlap = spans[i].start < spans[j].end && spans[j].start < spans[i].end;
                if (overlap && spans[i].gpu == spans[j].gpu)
                    QFAIL("two evaluations shared one GPU");
                overlapAcrossGpus = overlapAcrossGpus || overlap;
            }
        }
        QCOMPARE(used, (QSet<int>{0, 1}));
        QVERIFY(overlapAcrossGpus); // both GPUs were kept busy at once
        int maxBusy = 0;
        for (const auto& p : progress) {
            const auto pr = p.at(0).value<engine::RunProgress>();
            QCOMPARE(pr.evalSlots, 2);
            maxBusy = std::max(maxBusy, pr.evalSlotsBusy);
        }
        QCOMPARE(maxBusy, 2);
    }

    void gpuPoolHandsOutEachIndexOnce() {
        auto pool = engine::GpuPool::withIndices({0, 3});
        QCOMPARE(pool.acquire(), 0);
        QCOMPARE(pool.acquire(), 3);
        QCOMPARE(pool.acquire(), -1);
        pool.release(0);
        QCOMPARE(pool.acquire(), 0);
        QCOMPARE(engine::GpuPool(QStringLiteral("cpu")).size(), 1);
        // Without NVML (no GPU here) a CUDA device is still trusted with one GPU.
        qputenv("KBSTUDIO_GPUS", "2,5,2");
        QCOMPARE(engine::GpuPool(QStringLiteral("cuda")).indices(), (QList<int>{2, 5}));
        qunsetenv("KBSTUDIO_GPUS");
        QVERIFY(engine::GpuPool(QStringLiteral("cuda")).size() >= 1);
    }
};

QTEST_GUILESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
