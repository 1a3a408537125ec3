#include "engine/metrics/leaderboard.h"
#include "engine/report/leaderboardformat.h"
#include "leaderboardfixture.h"

#include <QDir>
#include <QFile>
#include <QTest>
#include <functional>

using namespace kb::metrics;
using namespace kb::metrics::test;

namespace {

enum class Format { Text, Markdown };

QString render(Format format, const Leaderboard& board) {
    return format == Format::Text ? kb::report::formatLeaderboardText(board)
                                  : kb::report::formatLeaderboardMarkdown(board);
}

// As the reports compute it: with the bootstrap intervals of the geomeans.
LeaderboardOptions reportOptions() {
    LeaderboardOptions options;
    options.bootstrapGeomean = true;
    return options;
}

Leaderboard boardFor(const QString& fixture) {
    if (fixture == QLatin1String("table1")) {
        LeaderboardOptions options = reportOptions();
        options.tasksPerLevel = {{1, 4}, {2, 2}, {3, 1}};
        return computeLeaderboard(table1Fixture(), options);
    }
    if (fixture == QLatin1String("cpu")) {
        return computeLeaderboard(cpuFixture(), reportOptions());
    }
    if (fixture == QLatin1String("l4only")) {
        // Only a level whose default weight is 0: the overall has nothing to weigh.
        return computeLeaderboard({correct("solo", "k", 4, 2.0)}, reportOptions());
    }
    return computeLeaderboard({}, reportOptions());
}

} // namespace

Q_DECLARE_METATYPE(Format)

class TestLeaderboardFormat : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void golden_data();
    void golden();
    void deterministic();
    void escapesPipesInMarkdown();
};

void TestLeaderboardFormat::golden_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<Format>("format");
    QTest::addColumn<QString>("goldenName");
    QTest::newRow("table1 text") << QStringLiteral("table1") << Format::Text
                                 << QStringLiteral("leaderboard_table1.txt");
    QTest::newRow("table1 markdown")
        << QStringLiteral("table1") << Format::Markdown << QStringLiteral("leaderboard_table1.md");
    QTest::newRow("cpu text") << QStringLiteral("cpu") << Format::Text
                              << QStringLiteral("leaderboard_cpu.txt");
    QTest::newRow("cpu markdown") << QStringLiteral("cpu") << Format::Markdown
                                  << QStringLiteral("leaderboard_cpu.md");
    QTest::newRow("l4 only text") << QStringLiteral("l4only") << Format::Text
                                  << QStringLiteral("leaderboard_l4only.txt");
    QTest::newRow("l4 only markdown")
        << QStringLiteral("l4only") << Format::Markdown << QStringLiteral("leaderboard_l4only.md");
    QTest::newRow("empty text") << QStringLiteral("empty") << Format::Text
                                << QStringLiteral("leaderboard_empty.txt");
    QTest::newRow("empty markdown")
        << QStringLiteral("empty") << Format::Markdown << QStringLiteral("leaderboard_empty.txt");
}

void TestLeaderboardFormat::golden() {
    QFETCH(QString, fixture);
    QFETCH(Format, format);
    QFETCH(QString, goldenName);

    const QString actual = render(format, boardFor(fixture));
    const QString goldenPath = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/golden/") + goldenName;
    QFile golden(goldenPath);
    const QByteArray expected = golden.open(QIODevice::ReadOnly) ? golden.readAll() : QByteArray();
    if (actual.toUtf8() != expected) {
        // Leave the actual output in the working directory (the build tree) for a diff.
        const QString actualPath = QDir::current().absoluteFilePath(
            QFileInfo(goldenName).fileName() + QStringLiteral(".actual"));
        QFile out(actualPath);
        if (out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            out.write(actual.toUtf8());
        }
        const QString message =
            QStringLiteral("output differs from the golden file; compare with: diff -u ") +
            goldenPath + QLatin1Char(' ') + actualPath +
            QStringLiteral(" (copy the .actual over the golden file when "
                           "the change is intended)");
        QFAIL(qPrintable(message));
    }
}

void TestLeaderboardFormat::deterministic() {
    const Leaderboard board = boardFor(QStringLiteral("table1"));
    QCOMPARE(kb::report::formatLeaderboardText(board), kb::report::formatLeaderboardText(board));
    QCOMPARE(kb::report::formatLeaderboardMarkdown(board),
             kb::report::formatLeaderboardMarkdown(board));
}

void TestLeaderboardFormat::escapesPipesInMarkdown() {
    const Leaderboard board = computeLeaderboard({correct("a|b", "t", 1, 2.0)});
    const QString markdown = kb::report::formatLeaderboardMarkdown(board);
    QVERIFY(markdown.contains(QStringLiteral("| a\\|b ")));
}

QTEST_GUILESS_MAIN(TestLeaderboardFormat)
#include "tst_leaderboardformat.moc"
