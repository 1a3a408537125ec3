#include "db/evaluationrepository.h"
#include "dbfixture.h"

#include <QTest>

using namespace kb::db;

namespace {
EvaluationRecord sampleRecord(Id attempt) {
    EvaluationRecord r;
    r.attemptId = attempt;
    r.candidate = {0, attempt, 0, "class ModelNew: pass", "abc", "kernelbench"};
    r.build = BuildRow{
        0, 0, "ok", 12.5, "key1", "g++ ...", R"([{"file":"main.cpp","line":3,"message":"x"}])"};
    r.environment = EnvironmentRow{0, "fp1", "cpu", "Test CPU", "1.13.1", "3.11", "", "", "{}"};
    r.evaluation.verdict = "correct";
    r.evaluation.correctnessPassed = true;
    r.evaluation.maxAbsError = 1e-6;
    r.trials = {{0, true, 1e-6, 1e-5, 0.0, ""}, {1, true, 2e-7, 1e-6, 0.0, ""}};
    TimingSeriesRow cand;
    cand.kind = "candidate";
    cand.samplesMs = {1.0, 1.2, 1.1};
    cand.medianMs = 1.1;
    cand.wallMs = 3.5;
    TimingSeriesRow eager = cand;
    eager.kind = "eager";
    eager.samplesMs = {2.0, 2.2, 2.4};
    eager.medianMs = 2.2;
    r.timing = {cand, eager};
    r.baseline = BaselineRow{0,   "hash0",      "Test CPU",    "1.13.1", "cpu;fp32",
                             2.2, std::nullopt, "unavailable", ""};
    r.findings = {{"excessive-speedup", "suspicious", "", "too fast"}};
    GpuSampleRow before;
    before.phase = "before";
    before.smClockMhz = 1980.0;
    GpuSampleRow after = before;
    after.phase = "after";
    after.throttleReasons = "sw_power_cap";
    r.gpuSamples = {before, after};
    r.attemptVerdict = "correct";
    r.suspicious = true;
    r.speedupEager = 2.0;
    return r;
}
} // namespace

class TestEvaluations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void storeAndReadBackEverything() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        const Id a = runs.queuedAttemptIds(run)[0];
        EvaluationRepository evals(f.database.connection());
        evals.store(sampleRecord(a));
        const auto d = evals.detail(a);
        QCOMPARE(d.attempt.status, std::string("done"));
        QCOMPARE(d.attempt.verdict, std::string("correct"));
        QVERIFY(d.attempt.suspicious);
        QCOMPARE(*d.attempt.speedupEager, 2.0);
        QVERIFY(d.candidate);
        QCOMPARE(d.candidate->code, std::string("class ModelNew: pass"));
        QVERIFY(d.build);
        QCOMPARE(d.build->seconds, 12.5);
        QCOMPARE(d.trials.size(), size_t(2));
        QCOMPARE(*d.trials[1].maxAbsError, 2e-7);
        QCOMPARE(d.timing.size(), size_t(2));
        QCOMPARE(d.timing[0].samplesMs,
                 (std::vector<double>{1.0, 1.2, 1.1})); // every sample, in order
        QCOMPARE(*d.timing[0].wallMs, 3.5);
        QCOMPARE(d.findings.size(), size_t(1));
        QCOMPARE(d.findings[0].rule, std::string("excessive-speedup"));
        QVERIFY(d.environment);
        QCOMPARE(d.environment->deviceName, std::string("Test CPU"));
        Statement g(f.database.connection(),
                    "SELECT phase, sm_clock_mhz, throttle_reasons FROM gpu_samples ORDER BY id");
        QVERIFY(g.step());
        QCOMPARE(g.text(0), std::string("before"));
        QCOMPARE(g.real(1), 1980.0);
        QVERIFY(g.step());
        QCOMPARE(g.text(2), std::string("sw_power_cap"));
        QVERIFY(!g.step());
    }

    void baselineIsCachedPerKeyAndUpdated() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        const auto ids = RunRepository(f.database.connection()).queuedAttemptIds(run);
        EvaluationRepository evals(f.database.connection());
        evals.store(sampleRecord(ids[0]));
        auto second = sampleRecord(ids[1]);
        second.baseline->eagerMedianMs = 3.0;
        evals.store(second);
        const auto b = evals.baseline("hash0", "Test CPU", "1.13.1", "cpu;fp32");
        QVERIFY(b);
        QCOMPARE(*b->eagerMedianMs, 3.0);
        QCOMPARE(evals.baselinesForTask("hash0").size(), size_t(1));
        QVERIFY(!evals.baseline("hash0", "Other GPU", "1.13.1", "cpu;fp32"));
        // The environment snapshot is stored once.
        Statement q(f.database.connection(), "SELECT count(*) FROM environments");
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), 1);
    }

    void failedStoreLeavesNothingBehind() {
        kb::test::DbFixture f;
        f.createRun();
        EvaluationRepository evals(f.database.connection());
        auto r = sampleRecord(999999); // no such attempt
        QVERIFY_THROWS_EXCEPTION(Error, evals.store(r));
        for (const char* table :
             {"candidates", "builds", "evaluations", "timing_series", "timing_samples",
              "correctness_trials", "baselines", "findings", "environments", "gpu_samples"}) {
            Statement q(f.database.connection(), std::string("SELECT count(*) FROM ") + table);
            QVERIFY(q.step());
            QVERIFY2(q.int64(0) == 0, table);
        }
    }

    void detailOfAttemptWithoutEvaluation() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        const Id a = RunRepository(f.database.connection()).queuedAttemptIds(run)[0];
        const auto d = EvaluationRepository(f.database.connection()).detail(a);
        QVERIFY(!d.candidate);
        QVERIFY(d.timing.empty());
        QVERIFY_THROWS_EXCEPTION(Error,
                                 EvaluationRepository(f.database.connection()).detail(a + 1000));
    }

    void deletingARunCascades() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        const Id a = RunRepository(f.database.connection()).queuedAttemptIds(run)[0];
        EvaluationRepository(f.database.connection()).store(sampleRecord(a));
        f.database.connection().exec("DELETE FROM runs WHERE id = " + std::to_string(run));
        Statement q(
            f.database.connection(),
            "SELECT (SELECT count(*) FROM attempts) + (SELECT count(*) FROM timing_samples)");
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), 0);
    }
};

QTEST_GUILESS_MAIN(TestEvaluations)
#include "tst_evaluations.moc"
