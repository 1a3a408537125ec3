#include "engine/metrics/passatk.h"
#include "outcomebuilder.h"

#include <QTest>
#include <cmath>

using namespace kb::metrics;
using namespace kb::metrics::test;

class TestPassAtK : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void estimator_data();
    void estimator();
    void invalidInput_data();
    void invalidInput();
    void aggregation_data();
    void aggregation();
    void cellsCoverEveryModelAndLevel();
};

void TestPassAtK::estimator_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("c");
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("expected");
    // 1 - C(n-c, k) / C(n, k), worked out by hand.
    QTest::newRow("5,2,1") << 5 << 2 << 1 << 0.4;              // 1 - 3/5
    QTest::newRow("5,2,2") << 5 << 2 << 2 << 0.7;              // 1 - 3/10
    QTest::newRow("5,2,3") << 5 << 2 << 3 << 1.0 - 1.0 / 10.0; // 1 - C(3,3)/C(5,3)
    QTest::newRow("c=0") << 5 << 0 << 3 << 0.0;
    QTest::newRow("n-c<k") << 5 << 4 << 2 << 1.0;
    QTest::newRow("all pass") << 5 << 5 << 1 << 1.0;
    QTest::newRow("10,3,1") << 10 << 3 << 1 << 0.3;
    QTest::newRow("10,3,5") << 10 << 3 << 5 << 1.0 - 21.0 / 252.0; // C(7,5)=21, C(10,5)=252
    QTest::newRow("4,1,2") << 4 << 1 << 2 << 0.5;                  // 1 - 3/6
    QTest::newRow("1,1,1") << 1 << 1 << 1 << 1.0;
    QTest::newRow("1,0,1") << 1 << 0 << 1 << 0.0;
    QTest::newRow("20,1,10") << 20 << 1 << 10 << 0.5; // 1 - C(19,10)/C(20,10)
    QTest::newRow("100,1,1") << 100 << 1 << 1 << 0.01;
    QTest::newRow("k=n") << 6 << 1 << 6 << 1.0;
    QTest::newRow("8,2,4") << 8 << 2 << 4 << 1.0 - 15.0 / 70.0; // C(6,4)=15, C(8,4)=70
}

void TestPassAtK::estimator() {
    QFETCH(int, n);
    QFETCH(int, c);
    QFETCH(int, k);
    QFETCH(double, expected);
    const double actual = passAtK(n, c, k);
    QVERIFY2(std::abs(actual - expected) < 1e-12, qPrintable(QString::number(actual, 'g', 17)));
}

void TestPassAtK::invalidInput_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("c");
    QTest::addColumn<int>("k");
    QTest::newRow("no samples") << 0 << 0 << 1;
    QTest::newRow("k=0") << 5 << 2 << 0;
    QTest::newRow("k>n") << 5 << 2 << 6;
    QTest::newRow("c<0") << 5 << -1 << 1;
    QTest::newRow("c>n") << 5 << 6 << 1;
}

void TestPassAtK::invalidInput() {
    QFETCH(int, n);
    QFETCH(int, c);
    QFETCH(int, k);
    QVERIFY(std::isnan(passAtK(n, c, k)));
}

namespace {

// Level 1 of a three-task suite:
//   a: 4 attempted samples (correct, incorrect, build error, rejected) + 1 not attempted: n=4, c=1
//   b: 4 correct samples, one of them suspicious and not accepted: n=4, c=3
//   c: only a not-attempted sample: missing, scores 0
// Level 2: task e with 2 samples, 1 correct (tasksPerLevel absent for level 2 -> 1 task).
Outcomes passAtKFixture() {
    AttemptOutcome suspicious = correct("m", "b", 1, 1.1, {}, 3);
    suspicious.suspicious = true;
    return {
        correct("m", "a", 1, 1.0, {}, 0),
        failed("m", "a", 1, Verdict::Incorrect, 1),
        failed("m", "a", 1, Verdict::BuildError, 2),
        failed("m", "a", 1, Verdict::Rejected, 3),
        failed("m", "a", 1, Verdict::NotAttempted, 4),
        correct("m", "b", 1, 1.0, {}, 0),
        correct("m", "b", 1, 1.0, {}, 1),
        correct("m", "b", 1, 1.0, {}, 2),
        suspicious,
        failed("m", "c", 1, Verdict::NotAttempted, 0),
        correct("m", "e", 2, 2.0, {}, 0),
        failed("m", "e", 2, Verdict::Timeout, 1),
    };
}

} // namespace

void TestPassAtK::aggregation_data() {
    QTest::addColumn<int>("level");
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("expected");
    QTest::addColumn<int>("tasks");
    QTest::addColumn<int>("scored");
    QTest::addColumn<int>("tooFew");
    // k=1: a 1/4, b 3/4, c 0 -> (0.25 + 0.75 + 0) / 3
    QTest::newRow("L1 k=1") << 1 << 1 << 1.0 / 3.0 << 3 << 3 << 0;
    // k=2: a 1 - C(3,2)/C(4,2) = 0.5, b n-c=1<2 -> 1, c 0 -> 1.5 / 3
    QTest::newRow("L1 k=2") << 1 << 2 << 0.5 << 3 << 3 << 0;
    // k=4: a 1 - 0 = 1 (n-c=3<4), b 1, c 0 -> 2/3
    QTest::newRow("L1 k=4") << 1 << 4 << 2.0 / 3.0 << 3 << 3 << 0;
    // k=5: a and b have only 4 samples -> left out; c (missing) still scores 0
    QTest::newRow("L1 k=5") << 1 << 5 << 0.0 << 3 << 1 << 2;
    QTest::newRow("L2 k=1") << 2 << 1 << 0.5 << 1 << 1 << 0;
    QTest::newRow("L2 k=2") << 2 << 2 << 1.0 << 1 << 1 << 0;
    QTest::newRow("L2 k=5") << 2 << 5 << -1.0 << 1 << 0 << 1; // nothing estimable
}

void TestPassAtK::aggregation() {
    QFETCH(int, level);
    QFETCH(int, k);
    QFETCH(double, expected);
    QFETCH(int, tasks);
    QFETCH(int, scored);
    QFETCH(int, tooFew);
    const auto cells = computePassAtK(passAtKFixture(), {5, 1, 2, 4, 1}, {{1, 3}});
    const auto it = std::find_if(cells.begin(), cells.end(), [&](const PassAtKCell& cell) {
        return cell.model == "m" && cell.level == level && cell.k == k;
    });
    QVERIFY(it != cells.end());
    QCOMPARE(it->tasks, tasks);
    QCOMPARE(it->tasksScored, scored);
    QCOMPARE(it->tasksWithTooFewSamples, tooFew);
    if (expected < 0) {
        QVERIFY(!it->passAtK.has_value());
    } else {
        QVERIFY(it->passAtK.has_value());
        QVERIFY2(std::abs(*it->passAtK - expected) < 1e-12,
                 qPrintable(QString::number(*it->passAtK, 'g', 17)));
    }
}

void TestPassAtK::cellsCoverEveryModelAndLevel() {
    Outcomes outcomes = passAtKFixture();
    outcomes.push_back(correct("other", "a", 1, 1.0));
    const auto cells = computePassAtK(outcomes, {2, 1}, {{1, 3}, {3, 10}});
    // models m, other x levels 1, 2, 3 x k 1, 2, in that order
    QCOMPARE(cells.size(), std::size_t(12));
    QCOMPARE(cells.front().model, std::string("m"));
    QCOMPARE(cells.front().level, 1);
    QCOMPARE(cells.front().k, 1);
    QCOMPARE(cells[1].k, 2);
    QCOMPARE(cells.back().model, std::string("other"));
    QCOMPARE(cells.back().level, 3);
    QCOMPARE(cells.back().tasks, 10);
    QCOMPARE(*cells.back().passAtK, 0.0); // "other" never attempted level 3
    // "other": 1 of 3 level-1 tasks at k=1
    const auto& otherL1 = cells[6];
    QCOMPARE(otherL1.level, 1);
    QVERIFY(std::abs(*otherL1.passAtK - 1.0 / 3.0) < 1e-12);
}

QTEST_GUILESS_MAIN(TestPassAtK)
#include "tst_passatk.moc"
