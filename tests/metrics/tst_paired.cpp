#include "engine/metrics/paired.h"
#include "outcomebuilder.h"

#include <QTest>
#include <cmath>

using namespace kb::metrics;
using namespace kb::metrics::test;

Q_DECLARE_METATYPE(kb::metrics::TaskComparison)
Q_DECLARE_METATYPE(kb::metrics::PairedVerdict)

namespace {

// Speedup spec per task: > 0 correct at that speedup, 0 failed (incorrect).
AttemptOutcome at(const std::string& model, const std::string& task, double speedup) {
    if (speedup <= 0) {
        return failed(model, task, 1, Verdict::Incorrect);
    }
    return correct(model, task, 1, speedup, speedup / 2.0);
}

// Hand case on level 1:
//   t1 A 2.0  B 1.0  -> r 2       win
//   t2 A 1.01 B 1.0  -> r 1.01    tie
//   t3 A fail B 1.5  -> r 1/1.5   loss
//   t4 A 1.0  B 1.0  -> r 1       tie
//   t5 A 3.0  B fail -> r 3       win
//   t6 A 1.02 B 1.0  -> r 1.02    tie (edge of the band)
//   t7 A only, t8 B only, t9 A not attempted
Outcomes handA() {
    return {at("A", "t1", 2.0), at("A", "t2", 1.01),
            at("A", "t3", 0),   at("A", "t4", 1.0),
            at("A", "t5", 3.0), at("A", "t6", 1.02),
            at("A", "t7", 5.0), failed("A", "t9", 1, Verdict::NotAttempted)};
}

Outcomes handB() {
    return {at("B", "t1", 1.0), at("B", "t2", 1.0), at("B", "t3", 1.5), at("B", "t4", 1.0),
            at("B", "t5", 0),   at("B", "t6", 1.0), at("B", "t8", 1.0), at("B", "t9", 2.0)};
}

// w wins of 2.0x against 1.0x, l losses the other way round, t ties at 1.0x both.
std::pair<Outcomes, Outcomes> signCase(int w, int l, int t) {
    Outcomes a;
    Outcomes b;
    int n = 0;
    auto add = [&](double sa, double sb) {
        const std::string task = "s" + std::to_string(n++);
        a.push_back(correct("A", task, 1, sa));
        b.push_back(correct("B", task, 1, sb));
    };
    for (int i = 0; i < w; ++i) {
        add(2.0, 1.0);
    }
    for (int i = 0; i < l; ++i) {
        add(1.0, 2.0);
    }
    for (int i = 0; i < t; ++i) {
        add(1.0, 1.0);
    }
    return {a, b};
}

} // namespace

class TestPaired : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void perTask_data();
    void perTask();
    void handCaseSummary();
    void tieBand_data();
    void tieBand();
    void signTestAndVerdict_data();
    void signTestAndVerdict();
    void bootstrapDeterministic_data();
    void bootstrapDeterministic();
    void compileBaseline();
    void noiseAwareTies_data();
    void noiseAwareTies();
    void identicalKernels_data();
    void identicalKernels();
    void noSharedTasks();
    void verdictTexts_data();
    void verdictTexts();
};

void TestPaired::perTask_data() {
    QTest::addColumn<QString>("task");
    QTest::addColumn<double>("speedupA");
    QTest::addColumn<double>("speedupB");
    QTest::addColumn<double>("ratio");
    QTest::addColumn<TaskComparison>("comparison");
    QTest::newRow("t1") << QStringLiteral("t1") << 2.0 << 1.0 << 2.0 << TaskComparison::Win;
    QTest::newRow("t2") << QStringLiteral("t2") << 1.01 << 1.0 << 1.01 << TaskComparison::Tie;
    QTest::newRow("t3") << QStringLiteral("t3") << 1.0 << 1.5 << 1.0 / 1.5 << TaskComparison::Loss;
    QTest::newRow("t4") << QStringLiteral("t4") << 1.0 << 1.0 << 1.0 << TaskComparison::Tie;
    QTest::newRow("t5") << QStringLiteral("t5") << 3.0 << 1.0 << 3.0 << TaskComparison::Win;
    QTest::newRow("t6") << QStringLiteral("t6") << 1.02 << 1.0 << 1.02 << TaskComparison::Tie;
}

void TestPaired::perTask() {
    QFETCH(QString, task);
    QFETCH(double, speedupA);
    QFETCH(double, speedupB);
    QFETCH(double, ratio);
    QFETCH(TaskComparison, comparison);
    const PairedComparison result = comparePaired(handA(), handB());
    const auto it =
        std::find_if(result.tasks.begin(), result.tasks.end(),
                     [&](const PairedTask& t) { return t.taskId == task.toStdString(); });
    QVERIFY(it != result.tasks.end());
    QCOMPARE(it->speedupA, speedupA);
    QCOMPARE(it->speedupB, speedupB);
    QVERIFY(std::abs(it->ratio - ratio) < 1e-12);
    QCOMPARE(it->comparison, comparison);
    // a failed task's 1.0 is a fallback, marked so a view can say so (t3: A failed, t5: B failed)
    QCOMPARE(it->correctA, task != QStringLiteral("t3"));
    QCOMPARE(it->correctB, task != QStringLiteral("t5"));
}

void TestPaired::handCaseSummary() {
    const PairedComparison result = comparePaired(handA(), handB());
    QCOMPARE(result.modelA, std::string("A"));
    QCOMPARE(result.modelB, std::string("B"));
    QCOMPARE(result.sharedTasks(), 6);
    QCOMPARE(result.onlyA, 1); // t7 (t9 was not attempted by A)
    QCOMPARE(result.onlyB, 2); // t8, t9
    QCOMPARE(result.wins, 2);
    QCOMPARE(result.ties, 3);
    QCOMPARE(result.losses, 1);
    // (2 * 1.01 * (1 / 1.5) * 1 * 3 * 1.02)^(1/6) = 4.1208^(1/6)
    QVERIFY(std::abs(*result.geomeanRatio - 1.26618429594677) < 1e-12);
    QCOMPARE(result.signTestP, 1.0); // 2 wins vs 1 loss: 2 * (1 + 3) / 8, capped at 1
    QVERIFY(result.ratioCi);
    QVERIFY(result.ratioCi->contains(*result.geomeanRatio));
    QVERIFY(result.ratioCi->low < 1.0); // six tasks, one loss: not enough to tell them apart
    QCOMPARE(result.verdict, PairedVerdict::Tied);
    QCOMPARE(result.tasks.front().taskId, std::string("t1"));
    QCOMPARE(result.tasks.back().taskId, std::string("t6"));
}

void TestPaired::tieBand_data() {
    QTest::addColumn<double>("band");
    QTest::addColumn<int>("wins");
    QTest::addColumn<int>("ties");
    QTest::addColumn<int>("losses");
    QTest::newRow("default 2%") << 0.02 << 2 << 3 << 1;
    QTest::newRow("no band") << 0.0 << 4 << 1 << 1;  // 1.01 and 1.02 become wins
    QTest::newRow("1.5%") << 0.015 << 3 << 2 << 1;   // 1.02 > 1.015
    QTest::newRow("wide 60%") << 0.6 << 2 << 4 << 0; // 2.0, 3.0 > 1.6; 1/1.5 > 1/1.6
    QTest::newRow("huge") << 5.0 << 0 << 6 << 0;
}

void TestPaired::tieBand() {
    QFETCH(double, band);
    QFETCH(int, wins);
    QFETCH(int, ties);
    QFETCH(int, losses);
    PairedOptions options;
    options.tieBand = band;
    const PairedComparison result = comparePaired(handA(), handB(), options);
    QCOMPARE(result.wins, wins);
    QCOMPARE(result.ties, ties);
    QCOMPARE(result.losses, losses);
}

void TestPaired::signTestAndVerdict_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("l");
    QTest::addColumn<int>("t");
    QTest::addColumn<double>("p");
    QTest::addColumn<double>("ratio");
    QTest::addColumn<PairedVerdict>("verdict");
    // 8 wins, 1 loss: p = 2 * (C(9,0) + C(9,1)) / 2^9; ratio (2^8 * 2^-1)^(1/9)
    QTest::newRow("8-1") << 8 << 1 << 0 << 0.0390625 << 1.71448796570615 << PairedVerdict::ABetter;
    QTest::newRow("1-8") << 1 << 8 << 0 << 0.0390625 << 1.0 / 1.71448796570615
                         << PairedVerdict::BBetter;
    // ties are dropped from the sign test but stay in the geomean: (2^8 * 2^-1)^(1/12)
    QTest::newRow("8-1-3") << 8 << 1 << 3 << 0.0390625 << std::pow(2.0, 7.0 / 12.0)
                           << PairedVerdict::ABetter;
    QTest::newRow("3-3") << 3 << 3 << 0 << 1.0 << 1.0 << PairedVerdict::Tied;
    QTest::newRow("all ties") << 0 << 0 << 6 << 1.0 << 1.0 << PairedVerdict::Tied;
    QTest::newRow("6-0") << 6 << 0 << 0 << 0.03125 << 2.0 << PairedVerdict::ABetter;
    // Below the minimum of 6 shared tasks no verdict, however clear the interval looks.
    QTest::newRow("5-0") << 5 << 0 << 0 << 0.0625 << 2.0 << PairedVerdict::NotEnoughEvidence;
    QTest::newRow("0-2") << 0 << 2 << 0 << 0.5 << 0.5 << PairedVerdict::NotEnoughEvidence;
    QTest::newRow("4 ties") << 0 << 0 << 4 << 1.0 << 1.0 << PairedVerdict::NotEnoughEvidence;
    // 5 wins and 3 ties: every resample's geomean is >= 1 and the interval lies above 1, but
    // five wins alone give p = 2 / 2^5 = 0.0625.
    QTest::newRow("5-0-3") << 5 << 0 << 3 << 0.0625 << std::pow(2.0, 5.0 / 8.0)
                           << PairedVerdict::NotSignificant;
}

void TestPaired::signTestAndVerdict() {
    QFETCH(int, w);
    QFETCH(int, l);
    QFETCH(int, t);
    QFETCH(double, p);
    QFETCH(double, ratio);
    QFETCH(PairedVerdict, verdict);
    const auto [a, b] = signCase(w, l, t);
    const PairedComparison result = comparePaired(a, b);
    QCOMPARE(result.wins, w);
    QCOMPARE(result.losses, l);
    QCOMPARE(result.ties, t);
    QVERIFY2(std::abs(result.signTestP - p) < 1e-12,
             qPrintable(QString::number(result.signTestP, 'g', 17)));
    QVERIFY2(std::abs(*result.geomeanRatio - ratio) < 1e-12,
             qPrintable(QString::number(*result.geomeanRatio, 'g', 17)));
    QVERIFY(result.ratioCi->contains(*result.geomeanRatio));
    QCOMPARE(result.verdict, verdict);
}

void TestPaired::bootstrapDeterministic_data() {
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<int>("resamples");
    QTest::newRow("default seed") << quint64(kDefaultBootstrapSeed) << 2000;
    QTest::newRow("seed 1") << quint64(1) << 2000;
    QTest::newRow("seed 99, 5000") << quint64(99) << 5000;
    QTest::newRow("500") << quint64(kDefaultBootstrapSeed) << 500;
}

void TestPaired::bootstrapDeterministic() {
    QFETCH(quint64, seed);
    QFETCH(int, resamples);
    PairedOptions options;
    options.seed = seed;
    options.bootstrapResamples = resamples;
    const auto [a, b] = signCase(5, 3, 2);
    const PairedComparison first = comparePaired(a, b, options);
    const PairedComparison second = comparePaired(a, b, options);
    QCOMPARE(first.ratioCi->low, second.ratioCi->low);
    QCOMPARE(first.ratioCi->high, second.ratioCi->high);
    QVERIFY(first.ratioCi->contains(*first.geomeanRatio));
    QVERIFY(first.ratioCi->low >= 0.5 && first.ratioCi->high <= 2.0);
    QCOMPARE(first.verdict, PairedVerdict::Tied);
    // The same values straight through the bootstrap give the same interval.
    std::vector<double> ratios;
    for (const PairedTask& task : first.tasks) {
        ratios.push_back(task.ratio);
    }
    const auto direct = bootstrapGeomeanInterval(ratios, resamples, 0.95, seed);
    QCOMPARE(direct->low, first.ratioCi->low);
    QCOMPARE(direct->high, first.ratioCi->high);
}

void TestPaired::compileBaseline() {
    // at() stores compile = eager / 2; failed tasks fall back to 1.0 against either baseline.
    PairedOptions options;
    options.baseline = Baseline::Compile;
    const PairedComparison result = comparePaired(handA(), handB(), options);
    const auto find = [&](const char* id) {
        return *std::find_if(result.tasks.begin(), result.tasks.end(),
                             [id](const PairedTask& t) { return t.taskId == id; });
    };
    QCOMPARE(find("t1").speedupA, 1.0); // 2.0 / 2
    QCOMPARE(find("t1").speedupB, 0.5);
    QCOMPARE(find("t3").speedupA, 1.0); // failed
    QCOMPARE(find("t3").speedupB, 0.75);
    QCOMPARE(find("t5").speedupB, 1.0); // failed
    QCOMPARE(find("t1").comparison, TaskComparison::Win);
    QCOMPARE(find("t3").comparison, TaskComparison::Win); // 1.0 / 0.75
}

void TestPaired::noiseAwareTies_data() {
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("aLow");
    QTest::addColumn<double>("aHigh");
    QTest::addColumn<double>("b"); // 0: B failed (exact 1.0); < 0: B without interval
    QTest::addColumn<double>("bLow");
    QTest::addColumn<double>("bHigh");
    QTest::addColumn<TaskComparison>("comparison");
    QTest::addColumn<bool>("byNoise");
    QTest::newRow("apart") << 1.30 << 1.25 << 1.35 << 1.10 << 1.05 << 1.15 << TaskComparison::Win
                           << false;
    QTest::newRow("overlap") << 1.30 << 1.10 << 1.50 << 1.10 << 1.00 << 1.20 << TaskComparison::Tie
                             << true;
    QTest::newRow("touching") << 1.30 << 1.20 << 1.40 << 1.10 << 1.00 << 1.20 << TaskComparison::Tie
                              << true;
    QTest::newRow("loss apart") << 0.80 << 0.78 << 0.82 << 1.00 << 0.98 << 1.02
                                << TaskComparison::Loss << false;
    QTest::newRow("interval holds failed 1.0")
        << 1.10 << 0.95 << 1.25 << 0.0 << 0.0 << 0.0 << TaskComparison::Tie << true;
    QTest::newRow("interval above failed 1.0")
        << 1.10 << 1.05 << 1.15 << 0.0 << 0.0 << 0.0 << TaskComparison::Win << false;
    QTest::newRow("holds other's point")
        << 1.30 << 1.05 << 1.40 << -1.10 << 0.0 << 0.0 << TaskComparison::Tie << true;
    QTest::newRow("inside the band anyway")
        << 1.01 << 1.00 << 1.02 << 1.00 << 0.99 << 1.01 << TaskComparison::Tie << false;
}

void TestPaired::noiseAwareTies() {
    QFETCH(double, a);
    QFETCH(double, aLow);
    QFETCH(double, aHigh);
    QFETCH(double, b);
    QFETCH(double, bLow);
    QFETCH(double, bHigh);
    QFETCH(TaskComparison, comparison);
    QFETCH(bool, byNoise);
    const Outcomes outA{withEagerBounds(correct("A", "t", 1, a), aLow, aHigh)};
    Outcomes outB;
    if (b == 0.0) {
        outB.push_back(failed("B", "t", 1, Verdict::Incorrect));
    } else if (b < 0) {
        outB.push_back(correct("B", "t", 1, -b));
    } else {
        outB.push_back(withEagerBounds(correct("B", "t", 1, b), bLow, bHigh));
    }
    const PairedComparison result = comparePaired(outA, outB);
    QCOMPARE(result.sharedTasks(), 1);
    QCOMPARE(result.tasks.front().comparison, comparison);
    QCOMPARE(result.tasks.front().tiedByNoise, byNoise);
    QCOMPARE(result.verdict, PairedVerdict::NotEnoughEvidence);
}

void TestPaired::identicalKernels_data() {
    QTest::addColumn<int>("tasks");
    QTest::addColumn<PairedVerdict>("verdict");
    // The same kernel measured twice reads a few percent apart; its intervals overlap.
    QTest::newRow("2 tasks") << 2 << PairedVerdict::NotEnoughEvidence;
    QTest::newRow("5 tasks") << 5 << PairedVerdict::NotEnoughEvidence;
    QTest::newRow("8 tasks") << 8 << PairedVerdict::NotSignificant;
    QTest::newRow("20 tasks") << 20 << PairedVerdict::NotSignificant;
}

void TestPaired::identicalKernels() {
    QFETCH(int, tasks);
    QFETCH(PairedVerdict, verdict);
    Outcomes a;
    Outcomes b;
    for (int i = 0; i < tasks; ++i) {
        const std::string task = "k" + std::to_string(i);
        const double s = 1.5 + 0.1 * i;
        // B always reads 4 % faster: a systematic-looking difference inside the noise.
        a.push_back(withEagerBounds(correct("A", task, 1, s), s * 0.95, s * 1.05));
        b.push_back(withEagerBounds(correct("B", task, 1, s * 1.04), s * 0.99, s * 1.09));
    }
    const PairedComparison result = comparePaired(a, b);
    QCOMPARE(result.ties, tasks);
    QCOMPARE(result.wins + result.losses, 0);
    QVERIFY(result.ratioCi->high < 1.0); // the raw ratios alone would say "B better"
    QCOMPARE(result.verdict, verdict);
    QVERIFY(result.verdict != PairedVerdict::BBetter);
}

void TestPaired::noSharedTasks() {
    const PairedComparison result =
        comparePaired({correct("A", "x", 1, 2.0)}, {correct("B", "x", 2, 2.0)});
    QCOMPARE(result.sharedTasks(), 0); // same id, different level: different tasks
    QCOMPARE(result.onlyA, 1);
    QCOMPARE(result.onlyB, 1);
    QVERIFY(!result.geomeanRatio);
    QVERIFY(!result.ratioCi);
    QCOMPARE(result.signTestP, 1.0);
    QCOMPARE(result.verdict, PairedVerdict::NoSharedTasks);
    QCOMPARE(comparePaired({}, {}).verdict, PairedVerdict::NoSharedTasks);
}

void TestPaired::verdictTexts_data() {
    QTest::addColumn<PairedVerdict>("verdict");
    QTest::addColumn<QString>("text");
    QTest::newRow("A") << PairedVerdict::ABetter << QStringLiteral("A better");
    QTest::newRow("B") << PairedVerdict::BBetter << QStringLiteral("B better");
    QTest::newRow("tied") << PairedVerdict::Tied << QStringLiteral("tied (CI includes 1)");
    QTest::newRow("none") << PairedVerdict::NoSharedTasks << QStringLiteral("no shared tasks");
    QTest::newRow("few") << PairedVerdict::NotEnoughEvidence
                         << QStringLiteral("not enough evidence (fewer than 6 shared tasks)");
    QTest::newRow("sign") << PairedVerdict::NotSignificant
                          << QStringLiteral("tied (sign test not significant)");
}

void TestPaired::verdictTexts() {
    QFETCH(PairedVerdict, verdict);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(verdictText(verdict)), text);
}

QTEST_GUILESS_MAIN(TestPaired)
#include "tst_paired.moc"
