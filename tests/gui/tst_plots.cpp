// Plot data (speedup groups, fast_p curves), the plot widgets, and PNG/SVG/PDF export.

#include "data/plotdata.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "pages/plotspage.h"
#include "plots/fastpcurveplot.h"
#include "plots/plotexport.h"
#include "plots/speedupdistributionplot.h"

#include <QFile>
#include <QImage>
#include <QTest>

using namespace kb;

namespace {

const gui::SpeedupGroup* group(const std::vector<gui::SpeedupGroup>& groups, const char* model,
                               int level) {
    for (const auto& g : groups) {
        if (g.model == QLatin1String(model) && g.level == level)
            return &g;
    }
    return nullptr;
}

double at(const gui::FastPCurve& curve, double p) {
    for (const auto& [x, y] : curve.points) {
        if (std::abs(x - p) < 1e-9)
            return y;
    }
    return -1;
}

} // namespace

class TestPlots : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_snapshot = test::loadSnapshot(m_fixture.path()); }

    void speedupGroupsHoldCorrectTasksOnly() {
        const auto groups =
            gui::speedupGroups(*m_snapshot, m_fixture.run1(), metrics::Baseline::Eager);
        QCOMPARE(groups.size(), std::size_t(6)); // 2 models x 3 levels
        QCOMPARE(group(groups, "demo-a", 1)->speedups, (std::vector<double>{0.5, 2.0}));
        QVERIFY(group(groups, "demo-a", 2)->speedups.empty());
        QCOMPARE(group(groups, "demo-a", 3)->speedups, std::vector<double>{1.25});
        QVERIFY(group(groups, "demo-b", 1)->speedups.empty()); // suspicious, not accepted
        QCOMPARE(group(groups, "demo-b", 2)->speedups, std::vector<double>{1.1});
        const auto compile =
            gui::speedupGroups(*m_snapshot, m_fixture.run1(), metrics::Baseline::Compile);
        QCOMPARE(group(compile, "demo-a", 1)->speedups, (std::vector<double>{0.25, 1.5}));
        QVERIFY(group(compile, "demo-a", 3)->speedups.empty());
        // every run: best of k per task
        const auto all = gui::speedupGroups(*m_snapshot, 0, metrics::Baseline::Eager);
        QCOMPARE(group(all, "demo-a", 1)->speedups, (std::vector<double>{0.5, 2.5}));
    }

    void fastPCurves() {
        const auto curves =
            gui::fastPCurves(*m_snapshot, m_fixture.run1(), metrics::Baseline::Eager, 0, 61);
        QCOMPARE(curves.size(), std::size_t(2));
        const auto& a = curves[0];
        QCOMPARE(a.model, QStringLiteral("demo-a"));
        QCOMPARE(a.points.size(), std::size_t(61));
        QCOMPARE(a.points.front().first, 0.0);
        QCOMPARE(a.points.back().first, 3.0);
        // demo-a: correct 2.0, 0.5, 1.25 of 4 tasks
        QCOMPARE(at(a, 0.0), 0.75);
        QCOMPARE(at(a, 1.0), 0.5);
        QCOMPARE(at(a, 1.5), 0.25);
        QCOMPARE(at(a, 2.0), 0.0); // strictly greater
        const auto level1 =
            gui::fastPCurves(*m_snapshot, m_fixture.run1(), metrics::Baseline::Eager, 1, 61);
        QCOMPARE(at(level1[0], 1.0), 0.5);
        QCOMPARE(at(level1[1], 0.0), 0.0); // demo-b: nothing scores at level 1
    }

    void widgetsDrawTheData() {
        gui::PlotsPage page;
        page.resize(1000, 700);
        page.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(page.distributionPlot()->graphCount(), 2);          // one per model
        QCOMPARE(page.distributionPlot()->graph(0)->dataCount(), 3); // demo-a: 0.5, 2.0, 1.25
        QCOMPARE(page.distributionPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(page.distributionPlot()->yAxis->range().contains(1.0));
        QCOMPARE(page.fastPPlot()->graphCount(), 2);
        QCOMPARE(page.fastPPlot()->graph(0)->dataCount(), 61);
        QCOMPARE(page.fastPPlot()->xAxis->range().lower, 0.0);
        QCOMPARE(page.fastPPlot()->xAxis->range().upper, 3.0);
        page.setSnapshot(std::make_shared<const gui::Snapshot>(), 0);
        QCOMPARE(page.distributionPlot()->graphCount(), 0);
        QCOMPARE(page.fastPPlot()->graphCount(), 0);
        page.setSnapshot(nullptr, 0);
        QCOMPARE(page.fastPPlot()->graphCount(), 0);
    }

    void exports_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("magic");
        QTest::newRow("png") << "plot.png" << QByteArray("\x89PNG");
        QTest::newRow("svg") << "plot.svg" << QByteArray("<?xml");
        QTest::newRow("pdf") << "plot.pdf" << QByteArray("%PDF");
    }

    void exports() {
        QFETCH(QString, file);
        QFETCH(QByteArray, magic);
        gui::FastPCurvePlot plot;
        plot.resize(640, 400);
        plot.setSnapshot(m_snapshot, m_fixture.run1());
        QTemporaryDir dir;
        const QString path = dir.filePath(file);
        const QString error = gui::exportPlot(&plot, path, 640, 400);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray head = f.read(64);
        QVERIFY2(head.startsWith(magic), head.constData());
        QVERIFY(f.size() > 500);
        if (file.endsWith(QLatin1String(".png"))) {
            const QImage image(path);
            QCOMPARE(image.size(), QSize(640, 400));
        }
        if (file.endsWith(QLatin1String(".svg"))) {
            f.seek(0);
            QVERIFY(f.readAll().contains("demo-a")); // legend text is real text
        }
    }

    void exportRejectsUnknownFormats() {
        gui::FastPCurvePlot plot;
        QTemporaryDir dir;
        QVERIFY(gui::exportPlot(&plot, dir.filePath(QStringLiteral("plot.bmpx")))
                    .contains(QStringLiteral("Unknown")));
        QVERIFY(!gui::exportPlot(&plot, QStringLiteral("/nonexistent/dir/plot.png"), 100, 100)
                     .isEmpty());
    }

private:
    test::GuiFixture m_fixture;
    gui::SnapshotPtr m_snapshot;
};

QTEST_MAIN(TestPlots)
#include "tst_plots.moc"
