#include "engine/metrics/leaderboard.h"
#include "leaderboardfixture.h"

#include <QTest>
#include <cmath>
#include <functional>
#include <limits>

using namespace kb::metrics;
using namespace kb::metrics::test;

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// Every field a row of the expectation tables can name.
std::optional<double> field(const LeaderboardCell& cell, const QString& name) {
    using Getter = std::function<std::optional<double>(const LeaderboardCell&)>;
    auto fast = [](double p, bool compile) {
        return Getter([p, compile](const LeaderboardCell& c) -> std::optional<double> {
            const FastPValue* v = c.fastPAt(p);
            if (!v) {
                return std::nullopt;
            }
            return compile ? v->vsCompile : std::optional<double>(v->vsEager);
        });
    };
    const std::map<QString, Getter> getters{
        {QStringLiteral("tasks"), [](const LeaderboardCell& c) { return double(c.tasks); }},
        {QStringLiteral("attempted"), [](const LeaderboardCell& c) { return double(c.attempted); }},
        {QStringLiteral("built"), [](const LeaderboardCell& c) { return double(c.built); }},
        {QStringLiteral("correct"), [](const LeaderboardCell& c) { return double(c.correct); }},
        {QStringLiteral("timed"), [](const LeaderboardCell& c) { return double(c.timed); }},
        {QStringLiteral("passRate"), [](const LeaderboardCell& c) { return c.passRate; }},
        {QStringLiteral("ciLow"),
         [](const LeaderboardCell& c) {
             return c.passRateCi ? std::optional<double>(c.passRateCi->low) : std::nullopt;
         }},
        {QStringLiteral("ciHigh"),
         [](const LeaderboardCell& c) {
             return c.passRateCi ? std::optional<double>(c.passRateCi->high) : std::nullopt;
         }},
        {QStringLiteral("fast1Eager"), fast(1.0, false)},
        {QStringLiteral("fast105Eager"), fast(1.05, false)},
        {QStringLiteral("fast1Compile"), fast(1.0, true)},
        {QStringLiteral("fast105Compile"), fast(1.05, true)},
        {QStringLiteral("geomeanEager"), [](const LeaderboardCell& c) { return c.geomeanEager; }},
        {QStringLiteral("geomeanCompile"),
         [](const LeaderboardCell& c) { return c.geomeanCompile; }},
        {QStringLiteral("fallbackEager"),
         [](const LeaderboardCell& c) { return c.geomeanFallbackEager; }},
        {QStringLiteral("fallbackCompile"),
         [](const LeaderboardCell& c) { return c.geomeanFallbackCompile; }},
        {QStringLiteral("medianEager"), [](const LeaderboardCell& c) { return c.medianEager; }},
        {QStringLiteral("medianCompile"), [](const LeaderboardCell& c) { return c.medianCompile; }},
        {QStringLiteral("suspicious"),
         [](const LeaderboardCell& c) { return double(c.suspicious); }},
        {QStringLiteral("acceptedSuspicious"),
         [](const LeaderboardCell& c) { return double(c.acceptedSuspicious); }},
        {QStringLiteral("rejected"), [](const LeaderboardCell& c) { return double(c.rejected); }},
        {QStringLiteral("inputTokens"),
         [](const LeaderboardCell& c) { return double(c.inputTokens); }},
        {QStringLiteral("outputTokens"),
         [](const LeaderboardCell& c) { return double(c.outputTokens); }},
        {QStringLiteral("cost"), [](const LeaderboardCell& c) { return c.costUsd; }},
        {QStringLiteral("turns"), [](const LeaderboardCell& c) { return double(c.turns); }},
        {QStringLiteral("wall"), [](const LeaderboardCell& c) { return c.wallSeconds; }},
    };
    const auto it = getters.find(name);
    if (it == getters.end()) {
        qFatal("unknown field");
    }
    return it->second(cell);
}

void addRow(const char* model, int level, const char* name, double expected) {
    QTest::addRow("%s L%d %s", model, level, name)
        << QString::fromLatin1(model) << level << QString::fromLatin1(name) << expected;
}

void addColumns() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("level");
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("expected");
}

void check(const Leaderboard& board) {
    QFETCH(QString, model);
    QFETCH(int, level);
    QFETCH(QString, name);
    QFETCH(double, expected);
    const LeaderboardCell* cell = board.find(model.toStdString(), level);
    QVERIFY(cell);
    const std::optional<double> actual = field(*cell, name);
    if (std::isnan(expected)) {
        QVERIFY2(!actual.has_value(), "expected n/a");
        return;
    }
    QVERIFY2(actual.has_value(), "expected a value");
    QVERIFY2(std::abs(*actual - expected) <= 1e-12 * std::max(1.0, std::abs(expected)),
             qPrintable(QString::number(*actual, 'g', 17)));
}

LeaderboardOptions table1Options() {
    LeaderboardOptions options;
    options.tasksPerLevel = {{1, 4}, {2, 2}, {3, 1}};
    return options;
}

} // namespace

class TestLeaderboard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void levelCells_data();
    void levelCells();
    void overall_data();
    void overall();
    void customWeights_data();
    void customWeights();
    void denominators_data();
    void denominators();
    void structure();
    void compileAvailability();
    void cellBootstrap();
    void emptyInput();
    void resultIsOrderIndependent();
    void passAtKPerCell_data();
    void passAtKPerCell();
    void overallBootstrapIsStratified();
    void fastPUsesIntervals();
};

void TestLeaderboard::levelCells_data() {
    addColumns();
    // alpha, level 1 (4 tasks): a 2.0x/1.5x, b 1.0x/0.5x, c incorrect, d missing
    addRow("alpha", 1, "tasks", 4);
    addRow("alpha", 1, "attempted", 3);
    addRow("alpha", 1, "built", 3);
    addRow("alpha", 1, "correct", 2);
    addRow("alpha", 1, "timed", 2);
    addRow("alpha", 1, "passRate", 0.5);
    addRow("alpha", 1, "ciLow", 0.15003898915215); // Wilson 2 of 4
    addRow("alpha", 1, "ciHigh", 0.84996101084785);
    addRow("alpha", 1, "fast1Eager", 0.25); // only 2.0 > 1; 1.0 is not
    addRow("alpha", 1, "fast105Eager", 0.25);
    addRow("alpha", 1, "fast1Compile", 0.25); // 1.5
    addRow("alpha", 1, "fast105Compile", 0.25);
    addRow("alpha", 1, "geomeanEager", std::sqrt(2.0));
    addRow("alpha", 1, "geomeanCompile", std::sqrt(0.75));
    addRow("alpha", 1, "fallbackEager", std::pow(2.0, 0.25)); // (2 * 1 * 1 * 1)^(1/4)
    addRow("alpha", 1, "fallbackCompile", std::pow(0.75, 0.25));
    addRow("alpha", 1, "medianEager", 1.5);
    addRow("alpha", 1, "medianCompile", 1.0);
    addRow("alpha", 1, "suspicious", 0);
    addRow("alpha", 1, "rejected", 0);
    addRow("alpha", 1, "inputTokens", 110); // both samples of task a
    addRow("alpha", 1, "outputTokens", 55);
    addRow("alpha", 1, "cost", 0.75);
    addRow("alpha", 1, "turns", 3);
    addRow("alpha", 1, "wall", 14);
    // beta, level 1: a exactly 1.05x, b build error, c rejected, d suspicious (unaccepted) 3.0x
    addRow("beta", 1, "tasks", 4);
    addRow("beta", 1, "attempted", 4);
    addRow("beta", 1, "built", 2); // a and d got past the build
    addRow("beta", 1, "correct", 1);
    addRow("beta", 1, "passRate", 0.25);
    addRow("beta", 1, "ciLow", 0.0455872608097005); // Wilson 1 of 4
    addRow("beta", 1, "ciHigh", 0.699358157417598);
    addRow("beta", 1, "fast1Eager", 0.25);
    addRow("beta", 1, "fast105Eager", 0.0); // 1.05 is not > 1.05
    addRow("beta", 1, "fast1Compile", 0.25);
    addRow("beta", 1, "fast105Compile", 0.0);
    addRow("beta", 1, "geomeanEager", 1.05); // the suspicious 3.0x does not enter
    addRow("beta", 1, "fallbackEager", std::pow(1.05, 0.25));
    addRow("beta", 1, "medianEager", 1.05);
    addRow("beta", 1, "suspicious", 1);
    addRow("beta", 1, "acceptedSuspicious", 0);
    addRow("beta", 1, "rejected", 1);
    // alpha, level 2: all failed
    addRow("alpha", 2, "tasks", 2);
    addRow("alpha", 2, "correct", 0);
    addRow("alpha", 2, "passRate", 0.0);
    addRow("alpha", 2, "ciLow", 0.0); // Wilson 0 of 2
    addRow("alpha", 2, "ciHigh", 0.657619772493347);
    addRow("alpha", 2, "fast1Eager", 0.0);
    addRow("alpha", 2, "fast1Compile", 0.0); // L2 has a compile baseline (beta)
    addRow("alpha", 2, "geomeanEager", kNone);
    addRow("alpha", 2, "geomeanCompile", kNone);
    addRow("alpha", 2, "fallbackEager", 1.0);
    addRow("alpha", 2, "fallbackCompile", 1.0);
    addRow("alpha", 2, "medianEager", kNone);
    // beta, level 2: x 4.0x/2.0x (accepted suspicious), y 0.5x/0.25x
    addRow("beta", 2, "correct", 2);
    addRow("beta", 2, "passRate", 1.0);
    addRow("beta", 2, "ciLow", 0.342380227506653); // Wilson 2 of 2
    addRow("beta", 2, "ciHigh", 1.0);
    addRow("beta", 2, "fast1Eager", 0.5);
    addRow("beta", 2, "fast105Eager", 0.5);
    addRow("beta", 2, "fast1Compile", 0.5);
    addRow("beta", 2, "geomeanEager", std::sqrt(2.0));
    addRow("beta", 2, "geomeanCompile", std::sqrt(0.5));
    addRow("beta", 2, "fallbackEager", std::sqrt(2.0));
    addRow("beta", 2, "medianEager", 2.25);
    addRow("beta", 2, "suspicious", 0);
    addRow("beta", 2, "acceptedSuspicious", 1);
    // level 3: one task, no compile baseline anywhere
    addRow("alpha", 3, "tasks", 1);
    addRow("alpha", 3, "passRate", 1.0);
    addRow("alpha", 3, "ciLow", 0.206549314377237); // Wilson 1 of 1
    addRow("alpha", 3, "fast1Eager", 1.0);
    addRow("alpha", 3, "fast1Compile", kNone);
    addRow("alpha", 3, "geomeanEager", 3.0);
    addRow("alpha", 3, "geomeanCompile", kNone);
    addRow("alpha", 3, "fallbackEager", 3.0);
    addRow("alpha", 3, "fallbackCompile", kNone);
    addRow("alpha", 3, "medianEager", 3.0);
    addRow("alpha", 3, "medianCompile", kNone);
    addRow("beta", 3, "tasks", 1); // missing entirely: still a failed task
    addRow("beta", 3, "attempted", 0);
    addRow("beta", 3, "correct", 0);
    addRow("beta", 3, "passRate", 0.0);
    addRow("beta", 3, "geomeanEager", kNone);
    addRow("beta", 3, "fallbackEager", 1.0);
}

void TestLeaderboard::levelCells() {
    check(computeLeaderboard(table1Fixture(), table1Options()));
}

void TestLeaderboard::overall_data() {
    addColumns();
    // Weights L1 100, L2 100, L3 50 (sum 250); compile exists on L1 and L2 only (sum 200).
    addRow("alpha", 0, "passRate", (100 * 0.5 + 100 * 0.0 + 50 * 1.0) / 250);    // 0.4
    addRow("alpha", 0, "fast1Eager", (100 * 0.25 + 100 * 0.0 + 50 * 1.0) / 250); // 0.3
    addRow("alpha", 0, "fast105Eager", 0.3);
    addRow("alpha", 0, "fast1Compile", (100 * 0.25 + 100 * 0.0) / 200); // 0.125
    // geomeans: L2 has none, so exp((100 log sqrt2 + 50 log 3) / 150) = 6^(1/3)
    addRow("alpha", 0, "geomeanEager", 1.81712059283214);
    addRow("alpha", 0, "geomeanCompile", std::sqrt(0.75)); // L1 only
    // exp((100 log 2^(1/4) + 100 log 1 + 50 log 3) / 250) = 2^(1/10) 3^(1/5)
    addRow("alpha", 0, "fallbackEager", 1.33514136254031);
    addRow("alpha", 0, "fallbackCompile", 0.964678629960309); // 0.75^(1/8)
    addRow("alpha", 0, "medianEager", 2.0);                   // pooled 2.0, 1.0, 3.0
    addRow("alpha", 0, "medianCompile", 1.0);                 // pooled 1.5, 0.5
    addRow("alpha", 0, "tasks", 7);
    addRow("alpha", 0, "correct", 3);
    addRow("alpha", 0, "inputTokens", 110);
    // n_eff = 1 / (0.4^2/4 + 0.4^2/2 + 0.2^2/1) = 6.25; Wilson of 0.4 at n = 6.25
    addRow("alpha", 0, "ciLow", 0.133421557602623);
    addRow("alpha", 0, "ciHigh", 0.742711316522903);
    addRow("beta", 0, "passRate", (100 * 0.25 + 100 * 1.0 + 50 * 0.0) / 250); // 0.5
    addRow("beta", 0, "fast1Eager", (100 * 0.25 + 100 * 0.5) / 250);          // 0.3
    addRow("beta", 0, "fast105Eager", (100 * 0.0 + 100 * 0.5) / 250);         // 0.2
    addRow("beta", 0, "fast1Compile", (100 * 0.25 + 100 * 0.5) / 200);        // 0.375
    addRow("beta", 0, "geomeanEager", 1.21857467579617);                      // sqrt(1.05 * sqrt 2)
    addRow("beta", 0, "fallbackEager", 1.15431656766006);                     // 1.05^(1/10) 2^(1/5)
    addRow("beta", 0, "medianEager", 1.05); // pooled 1.05, 4.0, 0.5
    addRow("beta", 0, "suspicious", 1);
    addRow("beta", 0, "acceptedSuspicious", 1);
    addRow("beta", 0, "rejected", 1);
    addRow("beta", 0, "tasks", 7);
    addRow("beta", 0, "correct", 3);
}

void TestLeaderboard::overall() {
    check(computeLeaderboard(table1Fixture(), table1Options()));
}

void TestLeaderboard::customWeights_data() {
    QTest::addColumn<int>("w1");
    QTest::addColumn<int>("w2");
    QTest::addColumn<int>("w3"); // -1: not configured (weighs its task count)
    QTest::addColumn<double>("alphaPass");
    QTest::addColumn<int>("alphaTasks");
    QTest::addColumn<double>("ciLow");
    QTest::addColumn<double>("ciHigh");
    // equal L1/L2, L3 out: (0.5 + 0) / 2, tasks 4 + 2
    QTest::newRow("1,1,0") << 1 << 1 << 0 << 0.25 << 6 << kNone << kNone;
    // weights = task counts (4, 2, 1): the pooled rate 3/7 and the pooled Wilson interval
    QTest::newRow("task counts") << -1 << -1 << -1 << 3.0 / 7.0 << 7 << 0.15821985525147
                                 << 0.749541635472343;
    // only L3: 1.0
    QTest::newRow("L3 only") << 0 << 0 << 5 << 1.0 << 1 << kNone << kNone;
    // L1 50, L3 50: (0.5 + 1) / 2
    QTest::newRow("L1 L3 half") << 50 << 0 << 50 << 0.75 << 5 << kNone << kNone;
}

void TestLeaderboard::customWeights() {
    QFETCH(int, w1);
    QFETCH(int, w2);
    QFETCH(int, w3);
    QFETCH(double, alphaPass);
    QFETCH(int, alphaTasks);
    QFETCH(double, ciLow);
    QFETCH(double, ciHigh);
    LeaderboardOptions options = table1Options();
    options.levelWeights.clear();
    const std::vector<std::pair<int, int>> weights{{1, w1}, {2, w2}, {3, w3}};
    for (const auto& [level, weight] : weights) {
        if (weight >= 0) {
            options.levelWeights[level] = weight;
        }
    }
    const Leaderboard board = computeLeaderboard(table1Fixture(), options);
    const LeaderboardCell* alpha = board.find("alpha", kOverallLevel);
    QVERIFY(alpha);
    QVERIFY2(std::abs(alpha->passRate - alphaPass) < 1e-12,
             qPrintable(QString::number(alpha->passRate, 'g', 17)));
    QCOMPARE(alpha->tasks, alphaTasks);
    if (!std::isnan(ciLow)) {
        QVERIFY(std::abs(alpha->passRateCi->low - ciLow) < 1e-12);
        QVERIFY(std::abs(alpha->passRateCi->high - ciHigh) < 1e-12);
    }
}

void TestLeaderboard::denominators_data() {
    QTest::addColumn<int>("configuredL1"); // 0: not configured
    QTest::addColumn<int>("alphaTasks");
    QTest::addColumn<int>("betaTasks");
    QTest::addColumn<double>("alphaPass");
    // not configured: distinct tasks seen on L1 across models (a b c d)
    QTest::newRow("seen") << 0 << 4 << 4 << 0.5;
    QTest::newRow("configured 10") << 10 << 10 << 10 << 0.2;
    // configured below what a model has outcomes for: raised per model (alpha a b c, beta a-d)
    QTest::newRow("configured 2") << 2 << 3 << 4 << 2.0 / 3.0;
}

void TestLeaderboard::denominators() {
    QFETCH(int, configuredL1);
    QFETCH(int, alphaTasks);
    QFETCH(int, betaTasks);
    QFETCH(double, alphaPass);
    LeaderboardOptions options;
    if (configuredL1 > 0) {
        options.tasksPerLevel[1] = configuredL1;
    }
    const Leaderboard board = computeLeaderboard(table1Fixture(), options);
    QCOMPARE(board.find("alpha", 1)->tasks, alphaTasks);
    QCOMPARE(board.find("beta", 1)->tasks, betaTasks);
    QVERIFY(std::abs(board.find("alpha", 1)->passRate - alphaPass) < 1e-12);
    QCOMPARE(board.tasksPerLevel.at(2), 2);
    QCOMPARE(board.tasksPerLevel.at(3), 1);
}

void TestLeaderboard::structure() {
    const Leaderboard board = computeLeaderboard(table1Fixture(), table1Options());
    QCOMPARE(board.models, (std::vector<std::string>{"alpha", "beta"}));
    QCOMPARE(board.levels, (std::vector<int>{1, 2, 3}));
    QCOMPARE(board.cells.size(), std::size_t(6));
    QCOMPARE(board.overall.size(), std::size_t(2));
    QCOMPARE(board.cells[0].level, 1);
    QCOMPARE(board.cells[0].model, std::string("alpha"));
    QCOMPARE(board.cells[1].model, std::string("beta"));
    QCOMPARE(board.cells[5].level, 3);
    QCOMPARE(board.levelWeights.at(3), 50.0);
    QCOMPARE(board.pValues, (std::vector<double>{1.0, 1.05}));
    QVERIFY(!board.find("gamma", 1));
    QVERIFY(!board.find("alpha", 4));
    QCOMPARE(board.find("alpha", kOverallLevel)->level, kOverallLevel);
    QVERIFY(board.find("alpha", 1)->fastPAt(1.05));
    QVERIFY(!board.find("alpha", 1)->fastPAt(2.0));

    LeaderboardOptions options = table1Options();
    options.pValues = {0.5, 2.0};
    const Leaderboard custom = computeLeaderboard(table1Fixture(), options);
    const LeaderboardCell* alpha = custom.find("alpha", 1);
    QCOMPARE(alpha->fastP.size(), std::size_t(2));
    QCOMPARE(alpha->fastPAt(0.5)->vsEager, 0.5); // 2.0 and 1.0 > 0.5
    QCOMPARE(alpha->fastPAt(2.0)->vsEager, 0.0); // 2.0 is not > 2.0
    QVERIFY(!alpha->fastPAt(1.0));
}

void TestLeaderboard::compileAvailability() {
    const Leaderboard board = computeLeaderboard(table1Fixture(), table1Options());
    QCOMPARE(board.compileAvailable.at(1), true);
    QCOMPARE(board.compileAvailable.at(2), true);
    QCOMPARE(board.compileAvailable.at(3), false);

    const Leaderboard cpu = computeLeaderboard(cpuFixture());
    const LeaderboardCell* cell = cpu.find("cpu-model", 1);
    QCOMPARE(cpu.compileAvailable.at(1), false);
    QVERIFY(!cell->fastPAt(1.0)->vsCompile);
    QVERIFY(!cell->geomeanCompile);
    QVERIFY(!cell->geomeanFallbackCompile);
    const LeaderboardCell* overallCell = cpu.find("cpu-model", kOverallLevel);
    QVERIFY(!overallCell->fastPAt(1.0)->vsCompile);
    QVERIFY(!overallCell->geomeanCompile);
    QVERIFY(!overallCell->medianCompile);
    QVERIFY(std::abs(*overallCell->geomeanEager - 1.0) < 1e-12); // sqrt(1.25 * 0.8)
}

void TestLeaderboard::cellBootstrap() {
    LeaderboardOptions options = table1Options();
    QVERIFY(!computeLeaderboard(table1Fixture(), options).find("beta", 2)->geomeanEagerCi);
    options.bootstrapGeomean = true;
    const Leaderboard first = computeLeaderboard(table1Fixture(), options);
    const Leaderboard second = computeLeaderboard(table1Fixture(), options);
    const LeaderboardCell* beta = first.find("beta", 2);
    QVERIFY(beta->geomeanEagerCi);
    QVERIFY(beta->geomeanEagerCi->contains(*beta->geomeanEager));
    QVERIFY(beta->geomeanEagerCi->low >= 0.5 && beta->geomeanEagerCi->high <= 4.0);
    QCOMPARE(beta->geomeanEagerCi->low, second.find("beta", 2)->geomeanEagerCi->low);
    QCOMPARE(beta->geomeanEagerCi->high, second.find("beta", 2)->geomeanEagerCi->high);
    QVERIFY(!first.find("alpha", 2)->geomeanEagerCi); // nothing correct
    const LeaderboardCell* alpha3 = first.find("alpha", 3);
    QCOMPARE(alpha3->geomeanEagerCi->low, 3.0); // a single task
    QCOMPARE(alpha3->geomeanEagerCi->high, 3.0);
}

void TestLeaderboard::emptyInput() {
    const Leaderboard board = computeLeaderboard({});
    QVERIFY(board.models.empty());
    QVERIFY(board.cells.empty());
    QVERIFY(board.overall.empty());

    // A configured suite with only not-attempted outcomes: everything failed, nothing attempted.
    LeaderboardOptions options;
    options.tasksPerLevel = {{1, 5}};
    const Leaderboard idle =
        computeLeaderboard({failed("m", "t", 1, Verdict::NotAttempted)}, options);
    const LeaderboardCell* cell = idle.find("m", 1);
    QVERIFY(cell);
    QCOMPARE(cell->tasks, 5);
    QCOMPARE(cell->attempted, 0);
    QCOMPARE(cell->passRate, 0.0);
    QCOMPARE(*cell->geomeanFallbackEager, 1.0);
    QCOMPARE(idle.find("m", kOverallLevel)->passRate, 0.0);
}

void TestLeaderboard::resultIsOrderIndependent() {
    Outcomes reversed = table1Fixture();
    std::reverse(reversed.begin(), reversed.end());
    const Leaderboard a = computeLeaderboard(table1Fixture(), table1Options());
    const Leaderboard b = computeLeaderboard(reversed, table1Options());
    QCOMPARE(a.cells.size(), b.cells.size());
    for (std::size_t i = 0; i < a.cells.size(); ++i) {
        QCOMPARE(a.cells[i].model, b.cells[i].model);
        QCOMPARE(a.cells[i].correct, b.cells[i].correct);
        QCOMPARE(a.cells[i].geomeanFallbackEager, b.cells[i].geomeanFallbackEager);
    }
    QCOMPARE(a.overall[1].passRate, b.overall[1].passRate);
}

void TestLeaderboard::passAtKPerCell_data() {
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("many");   // model "many": 3 samples on t1 (1 scores), 3 on t2 (0)
    QTest::addColumn<double>("single"); // model "single": 1 sample each (t1 scores); NaN = n/a
    // pass@1: t1 1/3, t2 0 -> 1/6; pass@3: t1 1, t2 0 -> 1/2.
    QTest::newRow("k=1") << 1 << 1.0 / 6.0 << 0.5;
    QTest::newRow("k=3") << 3 << 0.5 << std::numeric_limits<double>::quiet_NaN();
}

void TestLeaderboard::passAtKPerCell() {
    QFETCH(int, k);
    QFETCH(double, many);
    QFETCH(double, single);
    Outcomes outcomes;
    for (int i = 0; i < 3; ++i) {
        outcomes.push_back(i == 0 ? correct("many", "t1", 1, 1.5, {}, i)
                                  : failed("many", "t1", 1, Verdict::Incorrect, i));
        outcomes.push_back(failed("many", "t2", 1, Verdict::Incorrect, i));
    }
    outcomes.push_back(correct("single", "t1", 1, 1.2));
    outcomes.push_back(failed("single", "t2", 1, Verdict::BuildError));
    const Leaderboard board = computeLeaderboard(outcomes);
    QCOMPARE(board.passAtKs, (std::vector<int>{1, 3}));
    const auto* a = board.find("many", 1)->passAtKAt(k);
    QVERIFY(a && a->value);
    QVERIFY(std::abs(*a->value - many) < 1e-12);
    const auto* b = board.find("single", 1)->passAtKAt(k);
    QVERIFY(b);
    QCOMPARE(b->value.has_value(), !std::isnan(single));
    if (b->value) {
        QVERIFY(std::abs(*b->value - single) < 1e-12);
    }
    // The overall of a single weighted level is that level's value.
    const auto* overall = board.find("many", kOverallLevel)->passAtKAt(k);
    QVERIFY(std::abs(*overall->value - many) < 1e-12);
}

void TestLeaderboard::overallBootstrapIsStratified() {
    LeaderboardOptions options;
    options.bootstrapGeomean = true;
    const Outcomes oneLevel{correct("m", "a", 1, 1.2), correct("m", "b", 1, 2.0),
                            correct("m", "c", 1, 0.7)};
    const Leaderboard single = computeLeaderboard(oneLevel, options);
    const auto& level = *single.find("m", 1)->geomeanEagerCi;
    const auto& overall = *single.find("m", kOverallLevel)->geomeanEagerCi;
    QVERIFY(std::abs(level.low - overall.low) < 1e-12);
    QVERIFY(std::abs(level.high - overall.high) < 1e-12);

    Outcomes twoLevels = oneLevel;
    twoLevels.push_back(correct("m", "d", 2, 3.0));
    twoLevels.push_back(correct("m", "e", 2, 3.0));
    const Leaderboard two = computeLeaderboard(twoLevels, options);
    const auto* cell = two.find("m", kOverallLevel);
    QVERIFY(cell->geomeanEagerCi->contains(*cell->geomeanEager));
    // Level 2 never varies (both 3.0): the overall interval is narrower than level 1's in log
    // space, scaled by level 1's weight share (1/2).
    const double widthL1 = std::log(level.high / level.low);
    const double widthAll = std::log(cell->geomeanEagerCi->high / cell->geomeanEagerCi->low);
    QVERIFY(std::abs(widthAll - widthL1 / 2.0) < 1e-9);
    QVERIFY(!cell->geomeanCompileCi); // no compile baseline
}

void TestLeaderboard::fastPUsesIntervals() {
    // t1 1.04x whose interval holds 1; t2 1.2x clears; t3 1.1x without interval (older data).
    const Outcomes outcomes{withEagerBounds(correct("m", "t1", 1, 1.04), 0.98, 1.10, true),
                            withEagerBounds(correct("m", "t2", 1, 1.2), 1.15, 1.25),
                            correct("m", "t3", 1, 1.1)};
    const Leaderboard board = computeLeaderboard(outcomes);
    const auto* cell = board.find("m", 1);
    QVERIFY(std::abs(cell->fastPAt(1.0)->vsEager - 2.0 / 3.0) < 1e-12);
    QVERIFY(std::abs(cell->fastPAt(1.05)->vsEager - 2.0 / 3.0) < 1e-12);
    QCOMPARE(cell->noisy, 1);
    // Geomeans keep the point estimates.
    QVERIFY(std::abs(*cell->geomeanEager - std::cbrt(1.04 * 1.2 * 1.1)) < 1e-12);
}

QTEST_GUILESS_MAIN(TestLeaderboard)
#include "tst_leaderboard.moc"
