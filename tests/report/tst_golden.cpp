// Every text export of the fixed fixture database against its golden file.

#include "engine/analysis/outcomes.h"
#include "engine/report/exporter.h"
#include "engine/report/leaderboardformat.h"
#include "engine/report/runsettingssummary.h"
#include "goldenfile.h"
#include "reportfixture.h"

#include <QTest>

using namespace kb;

class TestGolden : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void golden_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QStringList>("models");
        QTest::addColumn<QList<int>>("levels");
        QTest::addColumn<QString>("golden");
        const QStringList all;
        const QList<int> allLevels;
        QTest::newRow("markdown") << QStringLiteral("markdown") << all << allLevels
                                  << QStringLiteral("leaderboard.md");
        QTest::newRow("markdown, two models compared")
            << QStringLiteral("markdown")
            << QStringList{QStringLiteral("model-a"), QStringLiteral("model-b")} << allLevels
            << QStringLiteral("leaderboard_compare.md");
        QTest::newRow("csv") << QStringLiteral("csv") << all << allLevels
                             << QStringLiteral("attempts.csv");
        QTest::newRow("leaderboard-csv") << QStringLiteral("leaderboard-csv") << all << allLevels
                                         << QStringLiteral("leaderboard.csv");
        QTest::newRow("samples-csv")
            << QStringLiteral("samples-csv") << all << allLevels << QStringLiteral("samples.csv");
        QTest::newRow("json") << QStringLiteral("json") << all << allLevels
                              << QStringLiteral("attempts.json");
        QTest::newRow("kernelbench, one model, every level")
            << QStringLiteral("kernelbench") << QStringList{QStringLiteral("model-a")} << allLevels
            << QStringLiteral("kernelbench_model-a.json");
        QTest::newRow("kernelbench, one model, one level")
            << QStringLiteral("kernelbench") << QStringList{QStringLiteral("model-b")}
            << QList<int>{1} << QStringLiteral("kernelbench_model-b_level1.json");
    }

    void golden() {
        QFETCH(QString, format);
        QFETCH(QStringList, models);
        QFETCH(QList<int>, levels);
        QFETCH(QString, golden);
        test::ReportFixture fixture;
        const auto fmt = report::exportFormatFromName(format);
        QVERIFY(fmt);
        report::ExportFilter filter;
        filter.runId = fixture.run;
        filter.models = models;
        filter.levels = levels;
        const auto data = report::loadReportData(fixture.database.connection(), filter,
                                                 report::loadOptionsFor(*fmt));
        const QString mismatch = test::goldenMismatch(report::renderExport(*fmt, data), golden);
        if (!mismatch.isEmpty())
            QFAIL(qPrintable(mismatch));
    }

    // The Markdown export starts with the run's settings, then the same table as `kbstudio-cli
    // report --format markdown` (the per-task summaries and the row-by-row snapshot agree,
    // intervals included), and closes with the cost and usage table.
    void markdownMatchesTheRunLeaderboard() {
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.runId = fixture.run;
        const auto data = report::loadReportData(fixture.database.connection(), filter);
        const QByteArray exported = report::renderExport(report::ExportFormat::Markdown, data);
        const QByteArray table =
            report::formatLeaderboardMarkdown(
                engine::leaderboardFor(fixture.database.connection(), fixture.run))
                .toUtf8();
        const QByteArray settings = report::runSettingsMarkdown(data.runs).toUtf8();
        QVERIFY(settings.startsWith("Settings:"));
        QVERIFY(exported.startsWith(QByteArray(settings + table)));
        QVERIFY(exported.mid(settings.size() + table.size()).contains("## Cost and usage"));
    }

    void deterministic() {
        test::ReportFixture one;
        test::ReportFixture two;
        for (const auto& name : report::exportFormatNames()) {
            const auto fmt = report::exportFormatFromName(name);
            if (*fmt == report::ExportFormat::Pdf || *fmt == report::ExportFormat::KernelBench)
                continue;
            const auto options = report::loadOptionsFor(*fmt);
            const auto a = report::loadReportData(one.database.connection(), {}, options);
            const auto b = report::loadReportData(two.database.connection(), {}, options);
            QCOMPARE(report::renderExport(*fmt, a), report::renderExport(*fmt, b));
        }
    }

    void jsonLeavesTheSeedOut() {
        test::ReportFixture fixture;
        const auto data = report::loadReportData(
            fixture.database.connection(), {}, report::loadOptionsFor(report::ExportFormat::Json));
        const QByteArray json = report::renderExport(report::ExportFormat::Json, data);
        QVERIFY(json.contains("\"timing_trials\": 3"));
        QVERIFY(!json.contains("987654321"));
    }
};

QTEST_GUILESS_MAIN(TestGolden)
#include "tst_golden.moc"
