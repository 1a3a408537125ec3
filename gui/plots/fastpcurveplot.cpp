#include "fastpcurveplot.h"

#include "plotstyle.h"

namespace kb::gui {

FastPCurvePlot::FastPCurvePlot(QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumHeight(200);
    setWindowTitle(tr("fast_p curve"));
    rebuild();
}

void FastPCurvePlot::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    m_snapshot = std::move(snapshot);
    m_runId = runId;
    rebuild();
}

void FastPCurvePlot::setBaseline(metrics::Baseline baseline) {
    m_baseline = baseline;
    rebuild();
}

void FastPCurvePlot::setLevel(int level) {
    m_level = level;
    rebuild();
}

void FastPCurvePlot::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild();
}

void FastPCurvePlot::rebuild() {
    clearGraphs();
    clearItems();
    applyPlotPalette(this, palette());
    m_curves = m_snapshot ? fastPCurves(*m_snapshot, m_runId, m_baseline, m_level)
                          : std::vector<FastPCurve>{};
    xAxis->setLabel(m_baseline == metrics::Baseline::Eager
                        ? tr("p (speedup threshold vs eager)")
                        : tr("p (speedup threshold vs torch.compile)"));
    yAxis->setLabel(tr("fast_p (% of all tasks)"));
    for (std::size_t i = 0; i < m_curves.size(); ++i) {
        QCPGraph* graph = addGraph();
        graph->setName(m_curves[i].model);
        graph->setPen(QPen(seriesColor(static_cast<int>(i)), 2));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        QVector<double> xs;
        QVector<double> ys;
        for (const auto& [p, f] : m_curves[i].points) {
            xs << p;
            ys << f * 100.0;
        }
        graph->setData(xs, ys, true);
    }
    auto* one = new QCPItemStraightLine(this);
    one->point1->setCoords(1, 0);
    one->point2->setCoords(1, 1);
    one->setPen(QPen(palette().color(QPalette::WindowText), 1, Qt::DashLine));
    xAxis->setRange(0, 3);
    yAxis->setRange(0, 105);
    legend->setVisible(!m_curves.empty());
    replot();
}

} // namespace kb::gui
