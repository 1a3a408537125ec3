// Every output carries the statistics and the settings behind them: pass@1 and pass@k (checked
// against values worked out by hand for the fixture), the geomean with its bootstrap interval,
// and the run's precision, TF32, compile mode and prompt template.
#include "engine/analysis/outcomes.h"
#include "engine/report/csvexport.h"
#include "engine/report/exporter.h"
#include "engine/report/leaderboardformat.h"
#include "engine/report/runsettingssummary.h"
#include "reportfixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace kb;

namespace {

// The leaderboard CSV as rows of column -> value.
QList<QMap<QString, QString>> csvRows(const QByteArray& csv) {
    const QStringList lines = QString::fromUtf8(csv).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const QStringList head = lines.value(0).split(QLatin1Char(','));
    QList<QMap<QString, QString>> rows;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        // the fixture's values hold no commas or quotes except the settings, which come last
        const QStringList fields = lines[i].split(QLatin1Char(','));
        QMap<QString, QString> row;
        for (qsizetype c = 0; c < head.size() && c < fields.size(); ++c)
            row.insert(head[c], fields[c]);
        rows << row;
    }
    return rows;
}

QMap<QString, QString> rowOf(const QList<QMap<QString, QString>>& rows, const QString& model,
                             const QString& level) {
    for (const auto& r : rows) {
        if (r.value(QStringLiteral("model")) == model && r.value(QStringLiteral("level")) == level)
            return r;
    }
    return {};
}

} // namespace

class TestStatistics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The fixture: model-a, L1: task L1_1 with two correct samples, L1_2 with one incorrect;
    // L2: L2_1 correct but suspicious (does not score), L2_2 a build error. model-b: one sample
    // per task; L1_1 and L1_2 correct.
    //   pass@1(a, L1) = mean(1 - C(0,1)/C(2,1), 0) = (1 + 0) / 2 = 0.5
    //   pass@2(a, L1) = L1_1 only (L1_2 has 1 < 2 samples): 1 - C(0,2)/C(2,2) = 1
    //   pass@1(a, overall) = (100 * 0.5 + 100 * 0) / 200 = 0.25; pass@2(a, overall) = 1 (L1 only)
    //   pass@1(b, L1) = 1; pass@2(b, L1) = n/a (no task has 2 samples)
    void passAtKAgainstHandComputedValues_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("level");
        QTest::addColumn<QString>("passAt1");
        QTest::addColumn<QString>("passAtK");
        QTest::newRow("a L1") << "model-a"
                              << "1"
                              << "0.5"
                              << "1";
        QTest::newRow("a L2") << "model-a"
                              << "2"
                              << "0"
                              << "";
        QTest::newRow("a overall") << "model-a"
                                   << "overall"
                                   << "0.25"
                                   << "1";
        QTest::newRow("b L1") << "model-b"
                              << "1"
                              << "1"
                              << "";
        QTest::newRow("b overall") << "model-b"
                                   << "overall"
                                   << "0.5"
                                   << "";
    }
    void passAtKAgainstHandComputedValues() {
        QFETCH(QString, model);
        QFETCH(QString, level);
        QFETCH(QString, passAt1);
        QFETCH(QString, passAtK);
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.runId = fixture.run;
        const auto data = report::loadReportData(fixture.database.connection(), filter);
        const auto rows = csvRows(report::leaderboardCsv(data));
        const auto row = rowOf(rows, model, level);
        QVERIFY2(!row.isEmpty(), qPrintable(model + QLatin1Char(' ') + level));
        QCOMPARE(row.value(QStringLiteral("k")),
                 QStringLiteral("2")); // the most samples a task has
        QCOMPARE(row.value(QStringLiteral("pass_at_1")), passAt1);
        QCOMPARE(row.value(QStringLiteral("pass_at_k")), passAtK);
        QCOMPARE(row.value(QStringLiteral("precision")), QStringLiteral("fp32"));
    }

    void geomeanIntervalInTheLeaderboardCsv() {
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.runId = fixture.run;
        const auto data = report::loadReportData(fixture.database.connection(), filter);
        const auto b = rowOf(csvRows(report::leaderboardCsv(data)), QStringLiteral("model-b"),
                             QStringLiteral("1"));
        // model-b L1: speedups 0.8 and 1.25 -> geomean 1, bootstrap over two tasks spans both
        QCOMPARE(b.value(QStringLiteral("geomean_eager")), QStringLiteral("1"));
        QCOMPARE(b.value(QStringLiteral("geomean_eager_low")), QStringLiteral("0.8"));
        QCOMPARE(b.value(QStringLiteral("geomean_eager_high")), QStringLiteral("1.25"));
    }

    // Each text output names pass@1, pass@2 (k = 2 here), shows an interval next to a geomean
    // and starts with the settings.
    void everyOutputShowsTheStatisticsAndSettings_data() {
        QTest::addColumn<QString>("format");
        for (const char* f : {"text", "markdown", "html", "leaderboard-csv", "json"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void everyOutputShowsTheStatisticsAndSettings() {
        QFETCH(QString, format);
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.runId = fixture.run;
        QString text;
        if (format == QLatin1String("text")) {
            // what `kbstudio-cli report` prints
            const auto data = report::loadReportData(fixture.database.connection(), filter);
            text = report::runSettingsText(data.runs) +
                   report::formatLeaderboardText(
                       engine::leaderboardFor(fixture.database.connection(), fixture.run));
        } else {
            const auto fmt = report::exportFormatFromName(format);
            QVERIFY(fmt);
            const auto data = report::loadReportData(fixture.database.connection(), filter,
                                                     report::loadOptionsFor(*fmt));
            text = QString::fromUtf8(report::renderExport(*fmt, data));
        }
        if (format == QLatin1String("leaderboard-csv")) {
            for (const char* column :
                 {"pass_at_1", "pass_at_k", "geomean_eager_low", "geomean_eager_high", "precision",
                  "tf32", "compile_mode", "prompt_template"})
                QVERIFY2(text.section(QLatin1Char('\n'), 0, 0)
                             .split(QLatin1Char(','))
                             .contains(QLatin1String(column)),
                         column);
            return;
        }
        if (format == QLatin1String("json")) {
            const QJsonObject doc = QJsonDocument::fromJson(text.toUtf8()).object();
            const QJsonObject summary = doc.value(QStringLiteral("runs"))
                                            .toArray()
                                            .at(0)
                                            .toObject()
                                            .value(QStringLiteral("settings_summary"))
                                            .toObject();
            QCOMPARE(summary.value(QStringLiteral("precision")).toString(), QStringLiteral("fp32"));
            QCOMPARE(summary.value(QStringLiteral("tf32")).toString(), QStringLiteral("off"));
            QVERIFY(summary.contains(QStringLiteral("compile_mode")));
            QVERIFY(summary.contains(QStringLiteral("prompt_template")));
            const QJsonObject cell = doc.value(QStringLiteral("leaderboard"))
                                         .toObject()
                                         .value(QStringLiteral("cells"))
                                         .toArray()
                                         .at(0)
                                         .toObject();
            const QJsonArray passAtK = cell.value(QStringLiteral("pass_at_k")).toArray();
            QCOMPARE(passAtK.size(), 2);
            QCOMPARE(passAtK.at(1).toObject().value(QStringLiteral("k")).toInt(), 2);
            QCOMPARE(cell.value(QStringLiteral("geomean_eager_ci")).toArray().size(), 2);
            return;
        }
        QVERIFY2(text.contains(QStringLiteral("pass@1")), qPrintable(format));
        QVERIFY2(text.contains(QStringLiteral("pass@2")), qPrintable(format));
        QVERIFY2(text.contains(QStringLiteral("1.00x [0.800, 1.25]")) ||
                     text.contains(QStringLiteral("1.00× [0.800, 1.25]")),
                 qPrintable(text.left(3000)));
        for (const char* fact :
             {"precision", "fp32", "TF32", "compile mode", "prompt template", "kbstudio"})
            QVERIFY2(text.contains(QLatin1String(fact)), fact);
    }
};

QTEST_GUILESS_MAIN(TestStatistics)
#include "tst_statistics.moc"
