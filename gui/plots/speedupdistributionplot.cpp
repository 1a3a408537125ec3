#include "speedupdistributionplot.h"

#include "metrics/stats.h"
#include "plotstyle.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

namespace kb::gui {

SpeedupDistributionPlot::SpeedupDistributionPlot(QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumHeight(200);
    setWindowTitle(tr("Speedup distribution"));
    // The legend goes in a row of its own under the axes, where it can never hide a point.
    auto* legendRow = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(0, 0, 0, 4));
    legendRow->addElement(0, 0, legend);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plotLayout()->setRowStretchFactor(1, 0.001);
    rebuild();
}

void SpeedupDistributionPlot::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    m_snapshot = std::move(snapshot);
    m_runId = runId;
    rebuild();
}

void SpeedupDistributionPlot::setBaseline(metrics::Baseline baseline) {
    m_baseline = baseline;
    rebuild();
}

void SpeedupDistributionPlot::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild();
}

void SpeedupDistributionPlot::rebuild() {
    clearGraphs();
    clearItems();
    applyPlotPalette(this, palette());
    m_groups =
        m_snapshot ? speedupGroups(*m_snapshot, m_runId, m_baseline) : std::vector<SpeedupGroup>{};

    QStringList models;
    QList<int> levels;
    for (const auto& g : m_groups) {
        if (!models.contains(g.model))
            models << g.model;
        if (!levels.contains(g.level))
            levels << g.level;
    }
    models.sort();
    std::sort(levels.begin(), levels.end());
    const auto modelCount = static_cast<double>(std::max<qsizetype>(1, models.size()));

    QSharedPointer<QCPAxisTickerText> levelTicker(new QCPAxisTickerText);
    for (qsizetype i = 0; i < levels.size(); ++i)
        levelTicker->addTick(static_cast<double>(i), tr("Level %1").arg(levels[i]));
    xAxis->setTicker(levelTicker);
    xAxis->setLabel({});
    xAxis->grid()->setVisible(false);
    xAxis->setRange(-0.6, std::max(0.6, static_cast<double>(levels.size()) - 0.4));

    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(log2Ticker());
    yAxis->setNumberFormat(QStringLiteral("g"));
    yAxis->setNumberPrecision(3);
    yAxis->setLabel(m_baseline == metrics::Baseline::Eager ? tr("speedup vs eager (log₂)")
                                                           : tr("speedup vs torch.compile (log₂)"));

    double lo = 0.5;
    double hi = 2.0;
    const double slot = 0.8 / modelCount;
    for (qsizetype m = 0; m < models.size(); ++m) {
        QCPGraph* graph = addGraph();
        graph->setName(models[m]);
        const QColor color = seriesColor(static_cast<int>(m));
        graph->setPen(QPen(color));
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, 6));
        QVector<double> xs;
        QVector<double> ys;
        for (const auto& g : m_groups) {
            if (g.model != models[m])
                continue;
            const double centre = static_cast<double>(levels.indexOf(g.level)) - 0.4 +
                                  slot * (static_cast<double>(m) + 0.5);
            for (std::size_t i = 0; i < g.speedups.size(); ++i) {
                // A small deterministic spread so equal speedups stay visible.
                const double jitter = slot * 0.35 * (static_cast<double>(i % 7) - 3.0) / 3.0;
                xs << centre + jitter;
                ys << g.speedups[i];
                lo = std::min(lo, g.speedups[i]);
                hi = std::max(hi, g.speedups[i]);
            }
            if (const auto med = metrics::median(g.speedups)) {
                auto* bar = new QCPItemLine(this);
                bar->start->setCoords(centre - slot * 0.4, *med);
                bar->end->setCoords(centre + slot * 0.4, *med);
                bar->setPen(QPen(color, 2.5));
            }
        }
        graph->setData(xs, ys);
    }

    auto* one = new QCPItemStraightLine(this);
    one->point1->setCoords(0, 1);
    one->point2->setCoords(1, 1);
    one->setPen(QPen(palette().color(QPalette::WindowText), 1, Qt::DashLine));

    yAxis->setRange(lo / 1.5, hi * 1.5);
    legend->setVisible(!models.isEmpty());
    replot();
}

} // namespace kb::gui
