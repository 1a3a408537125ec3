// The HTML report: well-formed XHTML, every section present, charts embedded as SVG, nothing
// loaded from outside the file, and every number traceable to attempt ids.

#include "engine/metrics/definitions.h"
#include "engine/report/htmlreport.h"
#include "engine/report/markdownxhtml.h"
#include "engine/report/svgplot.h"
#include "reportfixture.h"

#include <QSet>
#include <QTest>
#include <QXmlStreamReader>

using namespace kb;

namespace {

const QString kXhtml = QStringLiteral("http://www.w3.org/1999/xhtml");
const QString kSvg = QStringLiteral("http://www.w3.org/2000/svg");

struct Parsed {
    QString error;
    QSet<QString> sectionIds;
    int svgRoots = 0;
    QStringList externalReferences;
    QString text; // all character data
};

Parsed parse(const QString& xml) {
    Parsed p;
    QXmlStreamReader reader(xml);
    QString currentElement;
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement()) {
            const QString name = reader.name().toString();
            currentElement = name;
            if (name == QLatin1String("section"))
                p.sectionIds.insert(reader.attributes().value(QLatin1String("id")).toString());
            if (name == QLatin1String("svg") && reader.namespaceUri() == kSvg)
                ++p.svgRoots;
            for (const char* tag :
                 {"link", "script", "iframe", "object", "embed", "img", "image"}) {
                if (name == QLatin1String(tag))
                    p.externalReferences << QStringLiteral("<%1>").arg(name);
            }
            for (const auto& attr : reader.attributes()) {
                const QString attrName = attr.name().toString();
                const QString value = attr.value().toString();
                if ((attrName == QLatin1String("src") || attrName == QLatin1String("href")) &&
                    !value.startsWith(QLatin1Char('#')))
                    p.externalReferences << attrName + QLatin1Char('=') + value;
                if (value.contains(QLatin1String("url(")))
                    p.externalReferences << attrName + QStringLiteral(" uses url()");
            }
        } else if (reader.isCharacters()) {
            if (currentElement != QLatin1String("style"))
                p.text += reader.text();
            if (currentElement == QLatin1String("style") &&
                (reader.text().contains(QLatin1String("url(")) ||
                 reader.text().contains(QLatin1String("@import"))))
                p.externalReferences << QStringLiteral("style loads a resource");
        }
    }
    if (reader.hasError())
        p.error = QStringLiteral("line %1: %2").arg(reader.lineNumber()).arg(reader.errorString());
    return p;
}

report::ReportData fixtureData(test::ReportFixture& fixture, report::ExportFilter filter = {}) {
    filter.runId = fixture.run;
    return report::loadReportData(fixture.database.connection(), filter);
}

} // namespace

class TestHtmlReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void isWellFormedXhtmlWithEverySection() {
        test::ReportFixture fixture;
        report::HtmlOptions options;
        options.title = QStringLiteral("Fixture <report> & co");
        options.generatedAt = QStringLiteral("2026-01-02T03:04:05Z");
        const QString html = report::htmlReport(fixtureData(fixture), options);
        const Parsed p = parse(html);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        for (const char* id :
             {"leaderboard", "distributions", "tasks", "definitions", "settings", "environment"}) {
            QVERIFY2(p.sectionIds.contains(QLatin1String(id)), id);
        }
        QVERIFY(html.contains(QStringLiteral("<html xmlns=\"") + kXhtml));
        QVERIFY(p.text.contains(QStringLiteral("Fixture <report> & co")));
    }

    void embedsChartsAndNothingExternal() {
        test::ReportFixture fixture;
        const QString html = report::htmlReport(fixtureData(fixture));
        const Parsed p = parse(html);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(p.svgRoots, 4); // distribution + fast_p curve for each of the two levels
        QVERIFY2(p.externalReferences.isEmpty(),
                 qPrintable(p.externalReferences.join(QStringLiteral(", "))));
        QVERIFY(html.contains(QStringLiteral("class=\"one-x\"")));
    }

    void showsEnvironmentSettingsAndDefinitions() {
        test::ReportFixture fixture;
        const Parsed p = parse(report::htmlReport(fixtureData(fixture)));
        QVERIFY(p.text.contains(QStringLiteral("NVIDIA H200")));
        QVERIFY(p.text.contains(QStringLiteral("2.5.0+cu124")));
        QVERIFY(p.text.contains(QStringLiteral("timing_trials")));
        QVERIFY(!p.text.contains(QStringLiteral("987654321"))); // the run's secret seed
        QVERIFY(p.text.contains(QStringLiteral("Geomean with fallback")));
        QVERIFY(p.text.contains(QStringLiteral("Wilson score interval")));
        // Uncertainty and cost (issues of speedup intervals, pass@k and usage).
        QVERIFY(p.text.contains(QStringLiteral("pass@1")));
        QVERIFY(p.text.contains(QStringLiteral("Geomean eager [95% CI]")));
        QVERIFY(p.text.contains(QStringLiteral("2.50x"))); // model-a L1_1: best sample, no interval
        QVERIFY(p.text.contains(QStringLiteral("0.800x [0.600, 1.05]"))); // model-b L1_1, noisy
        QVERIFY(p.text.contains(QStringLiteral("noisy timing")));
        QVERIFY(p.sectionIds.contains(QStringLiteral("usage")));
        QVERIFY(p.text.contains(QStringLiteral("localhost:8000")));
        QVERIFY(p.text.contains(QStringLiteral("$0.0123")));
    }

    void perTaskRowsCarryAttemptIds() {
        test::ReportFixture fixture;
        const Parsed p = parse(report::htmlReport(fixtureData(fixture)));
        for (const auto& [key, id] : fixture.attempt)
            QVERIFY2(p.text.contains(QStringLiteral("#%1").arg(id)), key.second.c_str());
        // The better second sample of model-a on L1_1 is the best one.
        QVERIFY(p.text.contains(QStringLiteral("#%1* ").arg(fixture.secondSample).trimmed()));
    }

    void verdictFilterSelectsTaskRows() {
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.verdicts = {QStringLiteral("build_error")};
        const Parsed p = parse(report::htmlReport(fixtureData(fixture, filter)));
        QVERIFY(p.text.contains(QStringLiteral("#%1").arg(fixture.at("model-a", "L2_2"))));
        QVERIFY(!p.text.contains(QStringLiteral("#%1").arg(fixture.at("model-b", "L1_1"))));
    }

    void pairedSectionWhenTwoModelsAreSelected() {
        test::ReportFixture fixture;
        QVERIFY(!parse(report::htmlReport(fixtureData(fixture)))
                     .sectionIds.contains(QStringLiteral("paired")));
        report::ExportFilter filter;
        filter.models = {QStringLiteral("model-a"), QStringLiteral("model-b")};
        const Parsed p = parse(report::htmlReport(fixtureData(fixture, filter)));
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QVERIFY(p.sectionIds.contains(QStringLiteral("paired")));
        QVERIFY(p.text.contains(QStringLiteral("Paired comparison: model-a (A) vs model-b (B)")));
        QVERIFY(p.text.contains(QStringLiteral("Sign test p")));
        QVERIFY(p.text.contains(QStringLiteral("Tasks where they differ most")));
        QVERIFY(p.text.contains(QStringLiteral("Head to head: model-a (A) vs model-b (B)")));
        QVERIFY(p.externalReferences.isEmpty());
    }

    void emptySelectionStillWellFormed() {
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.verdicts = {QStringLiteral("timeout")};
        filter.levels = {4};
        const Parsed p = parse(report::htmlReport(fixtureData(fixture, filter)));
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
    }

    void distributionChartUsesLog2Axis() {
        const QString svg = report::speedupDistributionSvg(
            QStringLiteral("t"),
            {{QStringLiteral("a"), {0.5, 1.0, 2.0, 8.0}}, {QStringLiteral("b"), {}}});
        const Parsed p = parse(svg);
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(p.svgRoots, 1);
        for (const char* tick : {"1/2x", "1x", "2x", "4x", "8x"})
            QVERIFY2(p.text.contains(QLatin1String(tick)), tick);
        QVERIFY(svg.contains(QStringLiteral("class=\"one-x\"")));
        QCOMPARE(svg.count(QStringLiteral("<circle")), 4);
        QVERIFY(p.text.contains(QStringLiteral("n = 0")));
    }

    void emptyDistributionSaysSo() {
        const QString svg =
            report::speedupDistributionSvg(QStringLiteral("t"), {{QStringLiteral("a"), {}}});
        QVERIFY(parse(svg).error.isEmpty());
        QVERIFY(svg.contains(QStringLiteral("no correct, timed tasks")));
    }

    void fastPCurveIsWellFormed() {
        const QString svg = report::fastPCurveSvg(
            QStringLiteral("curve"), {{QStringLiteral("a"), {{0.0, 1.0}, {1.0, 0.5}, {3.0, 0.0}}}});
        QVERIFY(parse(svg).error.isEmpty());
        QVERIFY(svg.contains(QStringLiteral("<polyline")));
    }

    void definitionsRenderAsXhtml() {
        const auto md = metrics::definitionsMarkdown();
        const QString xhtml = report::markdownToXhtml(
            QString::fromUtf8(md.data(), static_cast<qsizetype>(md.size())));
        const Parsed p = parse(QStringLiteral("<div>") + xhtml + QStringLiteral("</div>"));
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QVERIFY(xhtml.contains(QStringLiteral("<h3>Metric definitions</h3>")));
        QVERIFY(xhtml.contains(QStringLiteral("<strong>Pass rate</strong>")));
        QVERIFY(xhtml.contains(QStringLiteral("<em>attempt</em>")));
        QVERIFY(!xhtml.contains(QStringLiteral("**")));
    }
};

QTEST_GUILESS_MAIN(TestHtmlReport)
#include "tst_htmlreport.moc"
