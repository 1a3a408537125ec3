#include "engine/metrics/fastp.h"
#include "engine/metrics/taskresult.h"
#include "outcomebuilder.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace kb::metrics;
using namespace kb::metrics::test;

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool sameOptional(std::optional<double> actual, double expected) {
    if (std::isnan(expected)) {
        return !actual.has_value();
    }
    return actual.has_value() && std::abs(*actual - expected) < 1e-12;
}

// Model m on level 1 of a six-task suite (task 6 missing):
//   t1 correct 1.5x eager / 0.9x compile
//   t2 correct exactly 1.0x eager / exactly 1.05x compile
//   t3 correct exactly 1.05x eager / 1.2x compile
//   t4 incorrect
//   t5 correct but never timed
Outcomes curveFixture() {
    return {
        correct("m", "t1", 1, 1.5, 0.9),     correct("m", "t2", 1, 1.0, 1.05),
        correct("m", "t3", 1, 1.05, 1.2),    failed("m", "t4", 1, Verdict::Incorrect),
        correct("m", "t5", 1, std::nullopt),
    };
}

} // namespace

class TestFastP : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resolveTask_data();
    void resolveTask();
    void fastP_data();
    void fastP();
    void curve_data();
    void curve();
    void resolveGroupsAndSorts();
    void intervalMustClear_data();
    void intervalMustClear();
    void bestOfKClearing();
};

void TestFastP::resolveTask_data() {
    QTest::addColumn<Outcomes>("samples");
    QTest::addColumn<bool>("attempted");
    QTest::addColumn<bool>("built");
    QTest::addColumn<bool>("isCorrect");
    QTest::addColumn<int>("samplesCount");
    QTest::addColumn<int>("correctSamples");
    QTest::addColumn<double>("eager");
    QTest::addColumn<double>("compile");
    QTest::addColumn<int>("bestIndex");
    QTest::addColumn<int>("suspicious");
    QTest::addColumn<int>("acceptedSuspicious");
    QTest::addColumn<int>("rejected");

    AttemptOutcome s1 = correct("m", "t", 1, 2.0, {}, 1);
    s1.suspicious = true; // 2.0x but nobody accepted it: must not be the best
    AttemptOutcome s2 = correct("m", "t", 1, 1.6, {}, 2);
    s2.suspicious = true;
    s2.accepted = true;
    QTest::newRow("best of k skips suspicious")
        << Outcomes{correct("m", "t", 1, 1.2, {}, 0), s1, s2,
                    failed("m", "t", 1, Verdict::Incorrect, 3)}
        << true << true << true << 4 << 2 << 1.6 << kNone << 2 << 1 << 1 << 0;

    AttemptOutcome lone = correct("m", "t", 1, 5.0);
    lone.suspicious = true;
    QTest::newRow("suspicious unaccepted only")
        << Outcomes{lone} << true << true << false << 1 << 0 << kNone << kNone << -1 << 1 << 0 << 0;
    lone.accepted = true;
    QTest::newRow("accepted suspicious scores")
        << Outcomes{lone} << true << true << true << 1 << 1 << 5.0 << kNone << 0 << 0 << 1 << 0;
    QTest::newRow("rejected only")
        << Outcomes{failed("m", "t", 1, Verdict::Rejected)} << true << false << false << 1 << 0
        << kNone << kNone << -1 << 0 << 0 << 1;
    QTest::newRow("build error only")
        << Outcomes{failed("m", "t", 1, Verdict::BuildError)} << true << false << false << 1 << 0
        << kNone << kNone << -1 << 0 << 0 << 0;
    QTest::newRow("runtime error built")
        << Outcomes{failed("m", "t", 1, Verdict::RuntimeError)} << true << true << false << 1 << 0
        << kNone << kNone << -1 << 0 << 0 << 0;
    QTest::newRow("not attempted only")
        << Outcomes{failed("m", "t", 1, Verdict::NotAttempted)} << false << false << false << 0 << 0
        << kNone << kNone << -1 << 0 << 0 << 0;
    QTest::newRow("untimed correct") << Outcomes{correct("m", "t", 1, std::nullopt)} << true << true
                                     << true << 1 << 1 << kNone << kNone << 0 << 0 << 0 << 0;
    QTest::newRow("timed beats untimed")
        << Outcomes{correct("m", "t", 1, std::nullopt, {}, 0), correct("m", "t", 1, 0.8, {}, 1)}
        << true << true << true << 2 << 2 << 0.8 << kNone << 1 << 0 << 0 << 0;
    QTest::newRow("tie goes to lower index")
        << Outcomes{correct("m", "t", 1, 1.5, {}, 3), correct("m", "t", 1, 1.5, {}, 1)} << true
        << true << true << 2 << 2 << 1.5 << kNone << 1 << 0 << 0 << 0;
    QTest::newRow("zero speedup ignored")
        << Outcomes{correct("m", "t", 1, 0.0, 0.0)} << true << true << true << 1 << 1 << kNone
        << kNone << 0 << 0 << 0 << 0;
    QTest::newRow("negative and infinite ignored")
        << Outcomes{correct("m", "t", 1, -1.0, kInf)} << true << true << true << 1 << 1 << kNone
        << kNone << 0 << 0 << 0 << 0;
    QTest::newRow("compile best independently")
        << Outcomes{correct("m", "t", 1, 2.0, 1.0, 0), correct("m", "t", 1, 1.5, 1.2, 1)} << true
        << true << true << 2 << 2 << 2.0 << 1.2 << 0 << 0 << 0 << 0;
    QTest::newRow("incorrect speedup ignored")
        << Outcomes{O{"m", "t", 1, 0, Verdict::Incorrect, 9.0, 9.0}} << true << true << false << 1
        << 0 << kNone << kNone << -1 << 0 << 0 << 0;
}

void TestFastP::resolveTask() {
    QFETCH(Outcomes, samples);
    QFETCH(bool, attempted);
    QFETCH(bool, built);
    QFETCH(bool, isCorrect);
    QFETCH(int, samplesCount);
    QFETCH(int, correctSamples);
    QFETCH(double, eager);
    QFETCH(double, compile);
    QFETCH(int, bestIndex);
    QFETCH(int, suspicious);
    QFETCH(int, acceptedSuspicious);
    QFETCH(int, rejected);

    const auto tasks = resolveTasks(samples);
    QCOMPARE(tasks.size(), std::size_t(1));
    const TaskResult& task = tasks.front();
    QCOMPARE(task.attempted, attempted);
    QCOMPARE(task.built, built);
    QCOMPARE(task.correct, isCorrect);
    QCOMPARE(task.samples, samplesCount);
    QCOMPARE(task.correctSamples, correctSamples);
    QVERIFY(sameOptional(task.speedupEager, eager));
    QVERIFY(sameOptional(task.speedupCompile, compile));
    QCOMPARE(task.bestSampleIndex, bestIndex);
    QCOMPARE(task.suspicious, suspicious);
    QCOMPARE(task.acceptedSuspicious, acceptedSuspicious);
    QCOMPARE(task.rejected, rejected);
}

void TestFastP::fastP_data() {
    QTest::addColumn<bool>("vsCompile");
    QTest::addColumn<double>("p");
    QTest::addColumn<int>("totalTasks"); // 0 = not given
    QTest::addColumn<double>("expected");
    // eager speedups of correct tasks: 1.5, 1.0, 1.05 (t5 untimed); 6 tasks in the suite
    QTest::newRow("eager p=0") << false << 0.0 << 6 << 3.0 / 6.0;
    QTest::newRow("eager p=0.5") << false << 0.5 << 6 << 3.0 / 6.0;
    QTest::newRow("eager p=1 (1.0 is not > 1)") << false << 1.0 << 6 << 2.0 / 6.0;
    QTest::newRow("eager p=1.05 (1.05 is not > 1.05)") << false << 1.05 << 6 << 1.0 / 6.0;
    QTest::newRow("eager p=1.5") << false << 1.5 << 6 << 0.0;
    QTest::newRow("eager p=1.49") << false << 1.49 << 6 << 1.0 / 6.0;
    // compile speedups: 0.9, 1.05, 1.2
    QTest::newRow("compile p=1") << true << 1.0 << 6 << 2.0 / 6.0;
    QTest::newRow("compile p=1.05") << true << 1.05 << 6 << 1.0 / 6.0;
    QTest::newRow("compile p=0.9") << true << 0.9 << 6 << 2.0 / 6.0;
    QTest::newRow("compile p=0.89") << true << 0.89 << 6 << 3.0 / 6.0;
    // without a suite size the 5 tasks seen are the denominator
    QTest::newRow("eager p=1 seen only") << false << 1.0 << 0 << 2.0 / 5.0;
    // a suite size below the tasks seen is raised to them
    QTest::newRow("eager p=1 suite too small") << false << 1.0 << 2 << 2.0 / 5.0;
    QTest::newRow("eager p=1 suite of 100") << false << 1.0 << 100 << 0.02;
}

void TestFastP::fastP() {
    QFETCH(bool, vsCompile);
    QFETCH(double, p);
    QFETCH(int, totalTasks);
    QFETCH(double, expected);
    const Baseline baseline = vsCompile ? Baseline::Compile : Baseline::Eager;
    const std::optional<int> total = totalTasks > 0 ? std::optional<int>(totalTasks) : std::nullopt;
    const double fromOutcomes = kb::metrics::fastP(curveFixture(), baseline, p, total);
    QVERIFY2(std::abs(fromOutcomes - expected) < 1e-12,
             qPrintable(QString::number(fromOutcomes, 'g', 17)));
    const double fromTasks =
        kb::metrics::fastP(resolveTasks(curveFixture()), baseline, p, totalTasks);
    QVERIFY(std::abs(fromTasks - expected) < 1e-12);
}

void TestFastP::curve_data() {
    QTest::addColumn<double>("from");
    QTest::addColumn<double>("to");
    QTest::addColumn<int>("steps");
    QTest::addColumn<QList<double>>("ps");
    QTest::addColumn<QList<double>>("values");
    QTest::newRow("0..2 in 5") << 0.0 << 2.0 << 5 << QList<double>{0, 0.5, 1.0, 1.5, 2.0}
                               << QList<double>{0.5, 0.5, 2.0 / 6, 0, 0};
    QTest::newRow("single step") << 1.0 << 3.0 << 1 << QList<double>{1.0} << QList<double>{2.0 / 6};
    QTest::newRow("no steps") << 0.0 << 3.0 << 0 << QList<double>{} << QList<double>{};
    QTest::newRow("1..1.1 in 3") << 1.0 << 1.1 << 3 << QList<double>{1.0, 1.05, 1.1}
                                 << QList<double>{2.0 / 6, 1.0 / 6, 1.0 / 6};
}

void TestFastP::curve() {
    QFETCH(double, from);
    QFETCH(double, to);
    QFETCH(int, steps);
    QFETCH(QList<double>, ps);
    QFETCH(QList<double>, values);
    const auto points = fastPCurve(curveFixture(), Baseline::Eager, from, to, steps, 6);
    QCOMPARE(static_cast<qsizetype>(points.size()), ps.size());
    for (qsizetype i = 0; i < ps.size(); ++i) {
        const auto& [p, value] = points[static_cast<std::size_t>(i)];
        QVERIFY2(std::abs(p - ps[i]) < 1e-12, qPrintable(QString::number(p, 'g', 17)));
        QVERIFY2(std::abs(value - values[i]) < 1e-12, qPrintable(QString::number(i)));
    }
    // Non-increasing in p, whatever the range.
    for (std::size_t i = 1; i < points.size(); ++i) {
        QVERIFY(points[i].second <= points[i - 1].second);
    }
}

void TestFastP::resolveGroupsAndSorts() {
    const Outcomes outcomes{
        correct("b", "t2", 2, 1.0), correct("a", "t9", 1, 1.0),        correct("b", "t1", 2, 1.0),
        correct("a", "t1", 2, 1.0), correct("b", "t1", 2, 3.0, {}, 1), correct("a", "t1", 1, 1.0),
    };
    const auto tasks = resolveTasks(outcomes);
    QCOMPARE(tasks.size(), std::size_t(5));
    const std::vector<std::string> order{"a/1/t1", "a/1/t9", "a/2/t1", "b/2/t1", "b/2/t2"};
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        QCOMPARE(tasks[i].model + "/" + std::to_string(tasks[i].level) + "/" + tasks[i].taskId,
                 order[i]);
    }
    QCOMPARE(*tasks[3].speedupEager, 3.0);
    QCOMPARE(tasks[3].samples, 2);
    QCOMPARE(modelsOf(tasks), (std::vector<std::string>{"a", "b"}));
    const auto denominators = levelDenominators(tasks, {{2, 0}, {5, 3}});
    QCOMPARE(denominators, (std::map<int, int>{{1, 2}, {2, 2}, {5, 3}}));
}

void TestFastP::intervalMustClear_data() {
    QTest::addColumn<double>("speedup");
    QTest::addColumn<double>("low"); // NaN: measured without an interval (older data)
    QTest::addColumn<double>("high");
    QTest::addColumn<double>("p");
    QTest::addColumn<bool>("counts");
    QTest::newRow("point above, interval above") << 1.30 << 1.20 << 1.40 << 1.0 << true;
    QTest::newRow("point above, interval holds 1") << 1.03 << 0.99 << 1.07 << 1.0 << false;
    QTest::newRow("interval low exactly p") << 1.10 << 1.00 << 1.20 << 1.0 << false;
    QTest::newRow("no interval, above") << 1.03 << kNone << kNone << 1.0 << true;
    QTest::newRow("no interval, equal") << 1.0 << kNone << kNone << 1.0 << false;
    QTest::newRow("clears 1.0, not 1.05") << 1.10 << 1.04 << 1.16 << 1.05 << false;
    QTest::newRow("clears 1.05") << 1.10 << 1.06 << 1.14 << 1.05 << true;
    QTest::newRow("slower, tight") << 0.50 << 0.49 << 0.51 << 0.0 << true;
}

void TestFastP::intervalMustClear() {
    QFETCH(double, speedup);
    QFETCH(double, low);
    QFETCH(double, high);
    QFETCH(double, p);
    QFETCH(bool, counts);
    AttemptOutcome outcome = correct("m", "t1", 1, speedup, speedup);
    if (!std::isnan(low)) {
        outcome = withEagerBounds(outcome, low, high);
        outcome.compileLow = low;
        outcome.compileHigh = high;
    }
    // Two tasks: the one under test and a failed one, so a count of 1 is 0.5.
    const Outcomes outcomes{outcome, failed("m", "t2", 1, Verdict::Incorrect)};
    const double expected = counts ? 0.5 : 0.0;
    QCOMPARE(kb::metrics::fastP(outcomes, Baseline::Eager, p), expected);
    QCOMPARE(kb::metrics::fastP(outcomes, Baseline::Compile, p), expected);
    // The point estimate and the geomean are not changed by the interval.
    const auto tasks = resolveTasks(outcomes);
    QCOMPARE(*tasks.front().speedupEager, speedup);
}

void TestFastP::bestOfKClearing() {
    // Sample 0 has the larger point speedup but a wide interval; sample 1 a smaller, tight one.
    // The task's speedup is the best point (1.25), and it clears 1.0 through sample 1's bound.
    const Outcomes outcomes{withEagerBounds(correct("m", "t", 1, 1.25, {}, 0), 0.90, 1.60, true),
                            withEagerBounds(correct("m", "t", 1, 1.15, {}, 1), 1.10, 1.20)};
    const auto tasks = resolveTasks(outcomes);
    QCOMPARE(tasks.size(), std::size_t(1));
    QCOMPARE(*tasks.front().speedupEager, 1.25);
    QCOMPARE(*tasks.front().clearEager, 1.10);
    QCOMPARE(tasks.front().boundsEager->low, 0.90); // the interval of the best point
    QCOMPARE(tasks.front().noisy, 1);
    QCOMPARE(kb::metrics::fastP(outcomes, Baseline::Eager, 1.0), 1.0);
    QCOMPARE(kb::metrics::fastP(outcomes, Baseline::Eager, 1.10), 0.0);
}

QTEST_GUILESS_MAIN(TestFastP)
#include "tst_fastp.moc"
