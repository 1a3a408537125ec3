#include "engine/metrics/stats.h"

#include <QTest>
#include <cmath>
#include <limits>
#include <vector>

using namespace kb::metrics;

using Values = std::vector<double>;
Q_DECLARE_METATYPE(Values)

namespace {
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

bool near(double actual, double expected, double tolerance = 1e-12) {
    if (std::isnan(expected)) {
        return std::isnan(actual);
    }
    return std::abs(actual - expected) <= tolerance * std::max(1.0, std::abs(expected));
}
} // namespace

class TestStats : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void geometricMean_data();
    void geometricMean();
    void median_data();
    void median();
    void quantile_data();
    void quantile();
    void normalQuantile_data();
    void normalQuantile();
    void wilson_data();
    void wilson();
    void signTest_data();
    void signTest();
    void signTestIsSymmetric_data();
    void signTestIsSymmetric();
    void uniformIndexStaysInRange_data();
    void uniformIndexStaysInRange();
    void bootstrap_data();
    void bootstrap();
    void bootstrapIsDeterministic();
};

void TestStats::geometricMean_data() {
    QTest::addColumn<Values>("values");
    QTest::addColumn<double>("expected");
    QTest::newRow("2 and 8") << Values{2, 8} << 4.0;
    QTest::newRow("ones") << Values{1, 1, 1} << 1.0;
    QTest::newRow("reciprocals") << Values{0.5, 2} << 1.0;
    QTest::newRow("single") << Values{4} << 4.0;
    QTest::newRow("1 2 4") << Values{1, 2, 4} << 2.0;
    QTest::newRow("1 3 9 27") << Values{1, 3, 9, 27} << std::sqrt(27.0);
    QTest::newRow("empty") << Values{} << kNone;
    QTest::newRow("zero") << Values{1, 0} << kNone;
    QTest::newRow("negative") << Values{1, -1} << kNone;
    QTest::newRow("infinite") << Values{1, std::numeric_limits<double>::infinity()} << kNone;
}

void TestStats::geometricMean() {
    QFETCH(Values, values);
    QFETCH(double, expected);
    const auto actual = kb::metrics::geometricMean(values);
    QCOMPARE(actual.has_value(), !std::isnan(expected));
    if (actual) {
        QVERIFY2(near(*actual, expected), qPrintable(QString::number(*actual, 'g', 17)));
    }
}

void TestStats::median_data() {
    QTest::addColumn<Values>("values");
    QTest::addColumn<double>("expected");
    QTest::newRow("odd") << Values{3, 1, 2} << 2.0;
    QTest::newRow("even") << Values{4, 1, 3, 2} << 2.5;
    QTest::newRow("single") << Values{5} << 5.0;
    QTest::newRow("duplicates") << Values{1, 1, 7} << 1.0;
    QTest::newRow("empty") << Values{} << kNone;
}

void TestStats::median() {
    QFETCH(Values, values);
    QFETCH(double, expected);
    const auto actual = kb::metrics::median(values);
    QCOMPARE(actual.has_value(), !std::isnan(expected));
    if (actual) {
        QVERIFY(near(*actual, expected));
    }
}

void TestStats::quantile_data() {
    QTest::addColumn<Values>("values");
    QTest::addColumn<double>("q");
    QTest::addColumn<double>("expected");
    // Type 7: h = (n - 1) q, interpolate between x[floor h] and x[floor h + 1].
    QTest::newRow("q0") << Values{4, 3, 2, 1} << 0.0 << 1.0;
    QTest::newRow("q.25") << Values{4, 3, 2, 1} << 0.25 << 1.75;
    QTest::newRow("q.5") << Values{4, 3, 2, 1} << 0.5 << 2.5;
    QTest::newRow("q.9") << Values{4, 3, 2, 1} << 0.9 << 3.7;
    QTest::newRow("q1") << Values{4, 3, 2, 1} << 1.0 << 4.0;
    QTest::newRow("q.025 of two") << Values{10, 20} << 0.025 << 10.25;
    QTest::newRow("q.975 of two") << Values{10, 20} << 0.975 << 19.75;
    QTest::newRow("clamped high") << Values{1, 2} << 1.5 << 2.0;
    QTest::newRow("clamped low") << Values{1, 2} << -1.0 << 1.0;
    QTest::newRow("single") << Values{7} << 0.3 << 7.0;
    QTest::newRow("empty") << Values{} << 0.5 << kNone;
}

void TestStats::quantile() {
    QFETCH(Values, values);
    QFETCH(double, q);
    QFETCH(double, expected);
    const auto actual = kb::metrics::quantile(values, q);
    QCOMPARE(actual.has_value(), !std::isnan(expected));
    if (actual) {
        QVERIFY2(near(*actual, expected), qPrintable(QString::number(*actual, 'g', 17)));
    }
}

void TestStats::normalQuantile_data() {
    QTest::addColumn<double>("p");
    QTest::addColumn<double>("expected");
    // Standard normal table values.
    QTest::newRow("median") << 0.5 << 0.0;
    QTest::newRow("97.5%") << 0.975 << 1.959963984540054;
    QTest::newRow("2.5%") << 0.025 << -1.959963984540054;
    QTest::newRow("99.5%") << 0.995 << 2.5758293035489004;
    QTest::newRow("0.1%") << 0.001 << -3.090232306167813;
    QTest::newRow("1 sigma") << 0.8413447460685429 << 1.0;
    QTest::newRow("0") << 0.0 << kNone;
    QTest::newRow("1") << 1.0 << kNone;
}

void TestStats::normalQuantile() {
    QFETCH(double, p);
    QFETCH(double, expected);
    const double actual = kb::metrics::normalQuantile(p);
    QVERIFY2(near(actual, expected, 1e-12), qPrintable(QString::number(actual, 'g', 17)));
}

void TestStats::wilson_data() {
    QTest::addColumn<double>("successes");
    QTest::addColumn<double>("n");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    // Wilson score bounds at z = 1.959963984540054, worked out from
    // (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n).
    QTest::newRow("0 of 10") << 0.0 << 10.0 << 0.0 << 0.277532799862889;
    QTest::newRow("10 of 10") << 10.0 << 10.0 << 0.722467200137111 << 1.0;
    QTest::newRow("5 of 10") << 5.0 << 10.0 << 0.236593090512564 << 0.763406909487436;
    QTest::newRow("1 of 4") << 1.0 << 4.0 << 0.0455872608097005 << 0.699358157417598;
    QTest::newRow("45 of 50") << 45.0 << 50.0 << 0.786397685625204 << 0.95652423506811;
    QTest::newRow("1 of 1") << 1.0 << 1.0 << 0.206549314377237 << 1.0;
    QTest::newRow("effective n") << 2.5 << 6.25 << 0.133421557602623 << 0.742711316522903;
    QTest::newRow("n 0") << 0.0 << 0.0 << kNone << kNone;
}

void TestStats::wilson() {
    QFETCH(double, successes);
    QFETCH(double, n);
    QFETCH(double, low);
    QFETCH(double, high);
    const auto actual = wilsonInterval(successes, n);
    QCOMPARE(actual.has_value(), !std::isnan(low));
    if (actual) {
        QVERIFY2(near(actual->low, low, 1e-12), qPrintable(QString::number(actual->low, 'g', 17)));
        QVERIFY2(near(actual->high, high, 1e-12),
                 qPrintable(QString::number(actual->high, 'g', 17)));
    }
}

void TestStats::signTest_data() {
    QTest::addColumn<int>("wins");
    QTest::addColumn<int>("losses");
    QTest::addColumn<double>("expected");
    QTest::newRow("8-1") << 8 << 1 << 2.0 * (1 + 9) / 512.0; // 0.0390625
    QTest::newRow("1-8") << 1 << 8 << 0.0390625;
    QTest::newRow("6-0") << 6 << 0 << 2.0 / 64.0;
    QTest::newRow("10-0") << 10 << 0 << 2.0 / 1024.0;
    QTest::newRow("0-8") << 0 << 8 << 2.0 / 256.0;
    QTest::newRow("7-3") << 7 << 3 << 2.0 * (1 + 10 + 45 + 120) / 1024.0; // 0.34375
    QTest::newRow("9-1") << 9 << 1 << 2.0 * (1 + 10) / 1024.0;
    QTest::newRow("5-5 capped") << 5 << 5 << 1.0;
    QTest::newRow("1-0 capped") << 1 << 0 << 1.0;
    QTest::newRow("2-1 capped") << 2 << 1 << 1.0;
    QTest::newRow("none") << 0 << 0 << 1.0;
    QTest::newRow("1000-0") << 1000 << 0 << std::ldexp(1.0, -999);
}

void TestStats::signTest() {
    QFETCH(int, wins);
    QFETCH(int, losses);
    QFETCH(double, expected);
    const double actual = signTestPValue(wins, losses);
    QVERIFY2(near(actual / expected, 1.0, 1e-10), qPrintable(QString::number(actual, 'g', 17)));
}

void TestStats::signTestIsSymmetric_data() {
    QTest::addColumn<int>("wins");
    QTest::addColumn<int>("losses");
    QTest::newRow("600-400") << 600 << 400;
    QTest::newRow("13-4") << 13 << 4;
    QTest::newRow("3-30") << 3 << 30;
}

void TestStats::signTestIsSymmetric() {
    QFETCH(int, wins);
    QFETCH(int, losses);
    const double p = signTestPValue(wins, losses);
    QCOMPARE(p, signTestPValue(losses, wins));
    QVERIFY(p > 0.0 && p < 0.05);
}

void TestStats::uniformIndexStaysInRange_data() {
    QTest::addColumn<quint64>("n");
    QTest::newRow("1") << quint64(1);
    QTest::newRow("2") << quint64(2);
    QTest::newRow("3") << quint64(3);
    QTest::newRow("7") << quint64(7);
    QTest::newRow("1000") << quint64(1000);
}

void TestStats::uniformIndexStaysInRange() {
    QFETCH(quint64, n);
    std::mt19937_64 rng(kDefaultBootstrapSeed);
    std::vector<int> counts(static_cast<std::size_t>(n), 0);
    const int draws = 3000 * static_cast<int>(std::min<quint64>(n, 7));
    for (int i = 0; i < draws; ++i) {
        const auto index = uniformIndex(rng, n);
        QVERIFY(index < n);
        ++counts[static_cast<std::size_t>(index)];
    }
    if (n <= 7) {
        for (int count : counts) {
            QVERIFY2(count > 2700 && count < 3300, qPrintable(QString::number(count)));
        }
    }
}

void TestStats::bootstrap_data() {
    QTest::addColumn<Values>("values");
    QTest::addColumn<int>("resamples");
    QTest::addColumn<bool>("exists");
    QTest::newRow("constant") << Values{2, 2, 2} << 200 << true;
    QTest::newRow("single") << Values{1.5} << 200 << true;
    QTest::newRow("spread") << Values{0.5, 1, 1.2, 2, 3, 0.9, 1.1} << 2000 << true;
    QTest::newRow("few resamples") << Values{0.5, 4} << 1 << true;
    QTest::newRow("empty") << Values{} << 200 << false;
    QTest::newRow("zero value") << Values{1, 0} << 200 << false;
    QTest::newRow("no resamples") << Values{1, 2} << 0 << false;
}

void TestStats::bootstrap() {
    QFETCH(Values, values);
    QFETCH(int, resamples);
    QFETCH(bool, exists);
    const auto ci = bootstrapGeomeanInterval(values, resamples);
    QCOMPARE(ci.has_value(), exists);
    if (!ci) {
        return;
    }
    const double lo = *std::min_element(values.begin(), values.end());
    const double hi = *std::max_element(values.begin(), values.end());
    QVERIFY(ci->low <= ci->high);
    QVERIFY(ci->low >= lo - 1e-12 && ci->high <= hi + 1e-12);
    if (resamples >= 200) {
        QVERIFY(ci->contains(*kb::metrics::geometricMean(values)));
    }
    if (lo == hi) {
        QVERIFY(near(ci->low, lo) && near(ci->high, hi));
    }
}

void TestStats::bootstrapIsDeterministic() {
    const Values values{0.5, 1, 1.2, 2, 3, 0.9, 1.1, 1.7};
    const auto first = bootstrapGeomeanInterval(values, 2000, 0.95, 7);
    const auto second = bootstrapGeomeanInterval(values, 2000, 0.95, 7);
    QVERIFY(first && second);
    QCOMPARE(first->low, second->low);
    QCOMPARE(first->high, second->high);
    const auto defaults = bootstrapGeomeanInterval(values);
    const auto explicitDefaults =
        bootstrapGeomeanInterval(values, 2000, 0.95, kDefaultBootstrapSeed);
    QCOMPARE(defaults->low, explicitDefaults->low);
    QCOMPARE(defaults->high, explicitDefaults->high);
    const auto narrower = bootstrapGeomeanInterval(values, 2000, 0.5, 7);
    QVERIFY(narrower->low >= first->low && narrower->high <= first->high);
}

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
