#include "engine/metrics/definitions.h"
#include "engine/metrics/leaderboard.h"
#include "engine/metrics/paired.h"
#include "engine/metrics/stats.h"

#include <QFile>
#include <QTest>

using namespace kb::metrics;

namespace {

QString definitions() {
    const std::string_view text = definitionsMarkdown();
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

} // namespace

class TestDefinitions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesDocsFile();
    void mentions_data();
    void mentions();
    void documentedDefaultsMatchCode();
};

void TestDefinitions::matchesDocsFile() {
    const QString path = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/../../docs/metrics.md");
    QFile file(path);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
    const QString onDisk = QString::fromUtf8(file.readAll());
    if (onDisk != definitions()) {
        QFAIL("docs/metrics.md and definitionsMarkdown() (engine/metrics/definitions.cpp) "
              "differ: keep them identical");
    }
}

void TestDefinitions::mentions_data() {
    QTest::addColumn<QString>("needle");
    const char* needles[] = {
        "**Pass rate** = correct / tasks",
        "clears p, divided by all tasks",
        "A value exactly equal to p does not count",
        "the lower bound of its interval is strictly greater",
        "noisy-timing",
        "95 % intervals overlap",
        "not enough evidence (fewer than 6 shared\n  tasks)",
        "tied (sign test not significant)",
        "stratified percentile bootstrap",
        "pass@1 and pass@k",
        "contributes 1.0",
        "L1 100, L2 100, L3 50, L4 0",
        "sum_l w_l * r_l / sum_l w_l",
        "exp(sum_l w_l * log g_l /",
        "Wilson score interval at 95 %",
        "1 - prod_{i = n - c + 1}^{n} (1 - k / i)",
        "r > 1.02",
        "r < 1 / 1.02",
        "percentile bootstrap",
        "std::mt19937_64",
        "ties dropped",
        "tied (CI includes 1)",
        "suspicious-unaccepted",
        "missing",
        "n/a",
    };
    for (const char* needle : needles) {
        QTest::newRow(needle) << QString::fromUtf8(needle);
    }
}

void TestDefinitions::mentions() {
    QFETCH(QString, needle);
    QVERIFY2(definitions().contains(needle), qPrintable(needle));
}

void TestDefinitions::documentedDefaultsMatchCode() {
    const QString text = definitions();
    QVERIFY(text.contains(QStringLiteral("seeded with ") + QString::number(kDefaultBootstrapSeed)));
    QVERIFY(
        text.contains(QString::number(kDefaultBootstrapResamples) + QStringLiteral(" resamples")));
    QVERIFY(text.contains(QStringLiteral("at least ") + QString::number(kMinPairedSharedTasks) +
                          QStringLiteral(" shared tasks")));
    QCOMPARE(signTestPValue(kMinPairedSharedTasks, 0) < 0.05, true);
    QCOMPARE(signTestPValue(kMinPairedSharedTasks - 1, 0) < 0.05, false);
    const LeaderboardOptions defaults;
    QCOMPARE(defaults.levelWeights.at(1), 100.0);
    QCOMPARE(defaults.levelWeights.at(2), 100.0);
    QCOMPARE(defaults.levelWeights.at(3), 50.0);
    QCOMPARE(defaults.levelWeights.at(4), 0.0);
    QCOMPARE(defaults.pValues, (std::vector<double>{1.0, 1.05}));
}

QTEST_GUILESS_MAIN(TestDefinitions)
#include "tst_definitions.moc"
