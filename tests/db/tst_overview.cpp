// The readers behind the GUI's overviews and monitor, the run settings sections, and the
// evaluation and lease readers they use.
#include "db/evaluationrepository.h"
#include "db/leaserepository.h"
#include "db/monitorrepository.h"
#include "db/overviewrepository.h"
#include "db/runsettingsrepository.h"
#include "dbfixture.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace kb::db;

namespace {

EvaluationRecord evaluation(Id attempt, int gpu, double smClock, const std::string& buildLog) {
    EvaluationRecord r;
    r.attemptId = attempt;
    r.candidate = {0, attempt, 0, "class ModelNew: pass", "h", "kernelbench"};
    r.build = BuildRow{0, 0, "failed", 1.0, "", buildLog, "[]"};
    r.evaluation.verdict = "correct";
    GpuSampleRow before;
    before.phase = "before";
    before.gpuIndex = gpu;
    before.smClockMhz = smClock;
    GpuSampleRow after = before;
    after.phase = "after";
    after.smClockMhz = smClock + 1;
    after.throttleReasons = "sw_power_cap";
    r.gpuSamples = {before, after};
    r.attemptVerdict = "correct";
    return r;
}

void setStarted(Connection& conn, Id attemptId, const std::string& started,
                const std::string& finished) {
    Statement q(conn, "UPDATE attempts SET started_at = ?, finished_at = ? WHERE id = ?");
    q.bind(1, started).bind(2, finished).bind(3, attemptId).exec();
}

} // namespace

class TestOverview : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void statusCountsPerRun() {
        kb::test::DbFixture f;
        const Id run1 = f.createRun();  // 6 attempts
        const Id run2 = f.createRun(2); // 12 attempts
        RunRepository runs(f.database.connection());
        const auto ids = runs.queuedAttemptIds(run1);
        runs.finishAttempt(ids[0], toString(AttemptStatus::Done), "correct", "");
        runs.finishAttempt(ids[1], toString(AttemptStatus::Failed), "harness_error", "");
        OverviewRepository overview(f.database.connection());
        std::map<std::pair<Id, std::string>, int> counts;
        for (const auto& c : overview.attemptStatusCounts())
            counts[{c.runId, c.status}] = c.count;
        const std::map<std::pair<Id, std::string>, int> expected{{{run1, "done"}, 1},
                                                                 {{run1, "failed"}, 1},
                                                                 {{run1, "queued"}, 4},
                                                                 {{run2, "queued"}, 12}};
        QCOMPARE(counts, expected);
    }

    void modelsPerRunAreSortedNames() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        OverviewRepository overview(f.database.connection());
        const auto models = overview.modelsPerRun();
        QCOMPARE(models.size(), size_t(1));
        QCOMPARE(models.at(run), (std::vector<std::string>{"model-a", "model-b"}));
    }

    void totalsCountVerdictsAndReviewsAndTheirFingerprintChanges() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        const auto ids = runs.queuedAttemptIds(run);
        EvaluationRepository evals(f.database.connection());
        auto suspicious = evaluation(ids[0], 0, 1000, "");
        suspicious.suspicious = true;
        evals.store(suspicious);
        evals.store(evaluation(ids[1], 0, 1000, ""));
        runs.finishAttempt(ids[2], "done", "rejected", "");
        OverviewRepository overview(f.database.connection());
        auto totals = overview.attemptTotals();
        QCOMPARE(totals.size(), size_t(1));
        QCOMPARE(totals[0].runId, run);
        QCOMPARE(totals[0].correct, 2);
        QCOMPARE(totals[0].suspicious, 1);
        QCOMPARE(totals[0].rejected, 1);
        QCOMPARE(totals[0].accepted, 0);
        const std::string before = totals[0].fingerprint;
        QVERIFY(!before.empty());
        QCOMPARE(overview.attemptTotals()[0].fingerprint, before); // stable when nothing changed

        runs.setReview(ids[0], "accepted", "fine");
        totals = overview.attemptTotals();
        QCOMPARE(totals[0].suspicious, 0);
        QCOMPARE(totals[0].accepted, 1);
        QVERIFY(totals[0].fingerprint != before);

        // A verdict changing into another that no count shows still changes it.
        const std::string reviewed = totals[0].fingerprint;
        runs.finishAttempt(ids[3], "done", "timeout", "");
        const std::string timedOut = overview.attemptTotals()[0].fingerprint;
        QVERIFY(timedOut != reviewed);
        runs.finishAttempt(ids[3], "done", "runtime_error", "");
        QVERIFY(overview.attemptTotals()[0].fingerprint != timedOut);
    }

    void attemptCostsOnlyWherePriced() {
        kb::test::DbFixture f;
        const Id run1 = f.createRun();
        const Id run2 = f.createRun();
        RunRepository runs(f.database.connection());
        const Id a = runs.queuedAttemptIds(run1)[0];
        const Id b = runs.queuedAttemptIds(run2)[0];
        TurnRow priced(0, a, 0, "p", "r", 100, 50, 1.0, "stop");
        priced.costUsd = 0.25;
        runs.addTurn(priced);
        runs.updateAttemptCost(a);
        TurnRow other(0, b, 0, "p", "r", 10, 5, 1.0, "stop");
        other.costUsd = 0.5;
        runs.addTurn(other);
        runs.updateAttemptCost(b);
        runs.addTurn({0, runs.queuedAttemptIds(run1)[1], 0, "p", "r", 1, 1, 1.0, "stop"});
        OverviewRepository overview(f.database.connection());
        QCOMPARE(overview.attemptCosts(run1), (std::map<Id, double>{{a, 0.25}}));
        QCOMPARE(overview.attemptCosts(run2), (std::map<Id, double>{{b, 0.5}}));
        QCOMPARE(overview.attemptCosts(), (std::map<Id, double>{{a, 0.25}, {b, 0.5}}));
    }

    void modelUsageSumsAttemptsTurnsAndTime() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        std::vector<Id> ofA;
        for (const auto& a : runs.attempts(run)) {
            if (a.modelId == f.models[0])
                ofA.push_back(a.id);
        }
        QCOMPARE(ofA.size(), size_t(3));
        TurnRow t1(0, ofA[0], 0, "p", "r", 100, 40, 1.0, "stop");
        t1.costUsd = 0.5;
        runs.addTurn(t1);
        runs.addTurn({0, ofA[0], 1, "p", "r", 10, 2, 1.0, "stop"});
        runs.updateAttemptCost(ofA[0]);
        setStarted(f.database.connection(), ofA[0], "2026-01-01T00:00:00.000Z",
                   "2026-01-01T00:00:30.000Z");
        setStarted(f.database.connection(), ofA[1], "2026-01-01T00:00:00.000Z", "");
        Statement unfinished(f.database.connection(),
                             "UPDATE attempts SET finished_at = NULL WHERE id = ?");
        unfinished.bind(1, ofA[1]).exec();
        const auto usage = OverviewRepository(f.database.connection()).modelUsage();
        QCOMPARE(usage.size(), size_t(2));
        const ModelUsageRow& a = usage[0];
        QCOMPARE(a.modelId, f.models[0]);
        QCOMPARE(a.attempts, 3);
        QCOMPARE(a.finished, 1);
        QCOMPARE(a.turns, 2);
        QCOMPARE(a.inputTokens, std::int64_t(110));
        QCOMPARE(a.outputTokens, std::int64_t(42));
        QCOMPARE(a.costUsd, 0.5);
        QVERIFY(qAbs(a.wallSeconds - 30.0) < 1e-3);
        const ModelUsageRow& b = usage[1];
        QCOMPARE(b.modelId, f.models[1]);
        QCOMPARE(b.attempts, 3);
        QCOMPARE(b.turns, 0);
        QCOMPARE(b.costUsd, 0.0);
    }

    void monitorCountsPerModelStateAndVerdict() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        f.createRun(); // another run's attempts are not counted
        RunRepository runs(f.database.connection());
        const auto attempts = runs.attempts(run);
        runs.finishAttempt(attempts[0].id, "done", "correct", "");
        runs.setAttemptStatus(attempts[1].id, "building");
        std::map<std::tuple<std::string, std::string, std::string>, int> counts;
        int total = 0;
        for (const auto& c : MonitorRepository(f.database.connection()).stateCounts(run)) {
            counts[{c.model, c.status, c.verdict}] = c.count;
            total += c.count;
        }
        QCOMPARE(total, 6);
        QCOMPARE(counts[std::make_tuple(attempts[0].modelName, std::string("done"),
                                        std::string("correct"))],
                 1);
        QCOMPARE(counts[std::make_tuple(attempts[1].modelName, std::string("building"),
                                        std::string("pending"))],
                 1);
    }

    void finishRateCountsTheWindowAndTheRunsAge() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        MonitorRepository monitor(f.database.connection());
        QCOMPARE(monitor.finishRate(run, 300).finishedInWindow, 0);
        QVERIFY(!monitor.finishRate(run, 300).secondsSinceStart); // not started
        runs.setRunStatus(run, "running");
        const auto ids = runs.queuedAttemptIds(run);
        runs.finishAttempt(ids[0], "done", "correct", "");
        runs.finishAttempt(ids[1], "cancelled", "pending", "");
        runs.finishAttempt(ids[2], "done", "incorrect", "");
        setStarted(f.database.connection(), ids[2], "2020-01-01T00:00:00.000Z",
                   "2020-01-01T00:01:00.000Z"); // long before the window
        const FinishRate rate = monitor.finishRate(run, 300);
        QCOMPARE(rate.finishedInWindow, 2);
        QVERIFY(rate.secondsSinceStart);
        QVERIFY(*rate.secondsSinceStart >= 0 && *rate.secondsSinceStart < 60);
        QCOMPARE(monitor.finishRate(run + 100, 300).finishedInWindow, 0);
    }

    void recentlyFinishedNewestLast() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        const auto ids = runs.queuedAttemptIds(run);
        for (int i = 0; i < 3; ++i) {
            runs.finishAttempt(ids[static_cast<size_t>(i)], "done", "correct", "ok");
            setStarted(f.database.connection(), ids[static_cast<size_t>(i)],
                       "2026-01-01T00:00:00.000Z",
                       "2026-01-01T00:00:0" + std::to_string(3 - i) + ".000Z");
        }
        MonitorRepository monitor(f.database.connection());
        const auto all = monitor.recentlyFinished(run, 10);
        QCOMPARE(all.size(), size_t(3));
        QCOMPARE(all[0].attemptId, ids[2]); // finished first
        QCOMPARE(all[2].attemptId, ids[0]); // finished last
        QCOMPARE(all[2].finishedAt, std::string("2026-01-01T00:00:03.000Z"));
        QCOMPARE(all[2].status, std::string("done"));
        QCOMPARE(all[2].verdict, std::string("correct"));
        QCOMPARE(all[2].message, std::string("ok"));
        QVERIFY(!all[2].model.empty());
        QVERIFY(!all[2].taskKey.empty());
        const auto two = monitor.recentlyFinished(run, 2);
        QCOMPARE(two.size(), size_t(2));
        QCOMPARE(two[0].attemptId, ids[1]);
        QCOMPARE(two[1].attemptId, ids[0]);
    }

    void runSettingsSectionsReplaceOneKey() {
        kb::test::DbFixture f;
        RunRow row;
        row.name = "r";
        row.suiteId = f.suite;
        row.settingsJson = R"({"samples":2,"launcher":{"old":true}})";
        const Id run = RunRepository(f.database.connection()).createRun(row, f.models, f.tasks, 1);
        RunSettingsRepository settings(f.database.connection());
        settings.setSection(run, "launcher", R"({"cost":1.5,"models":["a"]})");
        settings.setSection(run, "gui.note", R"("with a dot")");
        const QJsonObject o =
            QJsonDocument::fromJson(QByteArray::fromStdString(settings.settings(run))).object();
        QCOMPARE(o.value(QStringLiteral("samples")).toInt(), 2);
        const QJsonObject launcher = o.value(QStringLiteral("launcher")).toObject();
        QVERIFY(!launcher.contains(QStringLiteral("old")));
        QCOMPARE(launcher.value(QStringLiteral("cost")).toDouble(), 1.5);
        QCOMPARE(o.value(QStringLiteral("gui.note")).toString(), QStringLiteral("with a dot"));

        const std::string before = settings.settings(run);
        QVERIFY_THROWS_EXCEPTION(Error, settings.setSection(run + 100, "launcher", "{}"));
        QVERIFY_THROWS_EXCEPTION(Error, settings.setSection(run, "launcher", "{not json"));
        QVERIFY_THROWS_EXCEPTION(Error, settings.setSection(run, "a\"b", "{}"));
        QVERIFY_THROWS_EXCEPTION(Error, settings.setSection(run, "", "{}"));
        QCOMPARE(settings.settings(run), before);
        QCOMPARE(settings.settings(run + 100), std::string());
    }

    void latestBuildOfAnAttempt() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        const auto ids = RunRepository(f.database.connection()).queuedAttemptIds(run);
        EvaluationRepository evals(f.database.connection());
        QVERIFY(!evals.latestBuild(ids[0]));
        evals.store(evaluation(ids[0], 0, 1000, "first"));
        evals.store(evaluation(ids[0], 0, 1000, "second"));
        evals.store(evaluation(ids[1], 0, 1000, "other attempt"));
        const auto build = evals.latestBuild(ids[0]);
        QVERIFY(build);
        QCOMPARE(build->log, std::string("second"));
        QCOMPARE(build->status, std::string("failed"));
    }

    void gpuSamplesOfTheLatestEvaluation() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        const auto ids = RunRepository(f.database.connection()).queuedAttemptIds(run);
        EvaluationRepository evals(f.database.connection());
        using Scope = EvaluationRepository::GpuSampleScope;
        QVERIFY(evals.gpuSamples(ids[0], Scope::LatestEvaluation).empty());
        evals.store(evaluation(ids[0], 1, 1000, ""));
        auto newer = evaluation(ids[0], 1, 2000, "");
        GpuSampleRow gpu0;
        gpu0.phase = "before";
        gpu0.gpuIndex = 0;
        gpu0.smClockMhz = 3000;
        newer.gpuSamples.push_back(gpu0);
        evals.store(newer);
        const auto samples = evals.gpuSamples(ids[0], Scope::LatestEvaluation);
        QCOMPARE(samples.size(), size_t(3));
        QCOMPARE(samples[0].gpuIndex, 0); // by GPU, then as taken
        QCOMPARE(samples[1].phase, std::string("before"));
        QCOMPARE(*samples[1].smClockMhz, 2000.0);
        QCOMPARE(samples[2].phase, std::string("after"));
        QCOMPARE(samples[2].throttleReasons, std::string("sw_power_cap"));
    }

    void gpuSamplesNewestPerGpuOfARun() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        const Id other = f.createRun();
        RunRepository runs(f.database.connection());
        const auto ids = runs.queuedAttemptIds(run);
        EvaluationRepository evals(f.database.connection());
        evals.store(evaluation(ids[0], 1, 1000, ""));
        evals.store(evaluation(ids[1], 0, 1500, ""));
        evals.store(evaluation(ids[2], 1, 2000, ""));
        evals.store(evaluation(runs.queuedAttemptIds(other)[0], 2, 9000, ""));
        const auto samples =
            evals.gpuSamples(run, EvaluationRepository::GpuSampleScope::NewestPerGpu);
        QCOMPARE(samples.size(), size_t(2));
        QCOMPARE(samples[0].gpuIndex, 0);
        QCOMPARE(*samples[0].smClockMhz, 1501.0); // its newest reading: after
        QCOMPARE(samples[1].gpuIndex, 1);
        QCOMPARE(*samples[1].smClockMhz, 2001.0);
        QCOMPARE(samples[1].phase, std::string("after"));
    }

    void everyBaselineInOrder() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        const auto ids = RunRepository(f.database.connection()).queuedAttemptIds(run);
        EvaluationRepository evals(f.database.connection());
        QVERIFY(evals.baselines().empty());
        auto b = evaluation(ids[0], 0, 1, "");
        b.baseline = BaselineRow{0, "hash-b", "gpu", "2.5", "fp32", 2.0, 1.0, "", ""};
        evals.store(b);
        auto a = evaluation(ids[1], 0, 1, "");
        a.baseline = BaselineRow{0, "hash-a", "gpu", "2.5", "fp32", 3.0, std::nullopt, "n/a", ""};
        evals.store(a);
        const auto all = evals.baselines();
        QCOMPARE(all.size(), size_t(2));
        QCOMPARE(all[0].taskHash, std::string("hash-a"));
        QCOMPARE(*all[0].eagerMedianMs, 3.0);
        QVERIFY(!all[0].compileMedianMs);
        QCOMPARE(all[0].compileNote, std::string("n/a"));
        QCOMPARE(all[1].taskHash, std::string("hash-b"));
        QVERIFY(!all[1].measuredAt.empty());
    }

    void newestEngineOfARunLiveOrNot() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        LeaseRepository leases(f.database.connection());
        QVERIFY(!leases.newestEngine(run));
        EngineRow old;
        old.owner = "old";
        old.kind = "serve";
        old.runId = run;
        old.startedAt = 10;
        old.heartbeatAt = 20;
        leases.registerEngine(old);
        EngineRow stale = old;
        stale.owner = "stale";
        stale.host = "node1";
        stale.pid = 42;
        stale.heartbeatAt = 30; // long expired: still shown
        leases.registerEngine(stale);
        const auto newest = leases.newestEngine(run);
        QVERIFY(newest);
        QCOMPARE(newest->owner, std::string("stale"));
        QCOMPARE(newest->host, std::string("node1"));
        QCOMPARE(newest->pid, std::int64_t(42));
        QCOMPARE(newest->heartbeatAt, 30.0);
        leases.stopEngine("stale", 40);
        QCOMPARE(leases.newestEngine(run)->owner, std::string("old"));
        QVERIFY(!leases.newestEngine(run + 100));
    }
};

QTEST_GUILESS_MAIN(TestOverview)
#include "tst_overview.moc"
