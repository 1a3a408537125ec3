#include "costscoreplot.h"

#include "plotstyle.h"

#include <algorithm>

namespace kb::gui {

CostScorePlot::CostScorePlot(QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumSize(240, 200);
    setWindowTitle(tr("Cost vs score"));
    rebuild();
}

void CostScorePlot::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    m_snapshot = std::move(snapshot);
    m_runId = runId;
    rebuild();
}

void CostScorePlot::setMeasure(ScoreMeasure measure) {
    m_measure = measure;
    rebuild();
}

void CostScorePlot::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild();
}

void CostScorePlot::rebuild() {
    clearGraphs();
    clearItems();
    applyPlotPalette(this, palette());
    m_data = m_snapshot ? costScorePoints(*m_snapshot, m_runId, m_measure) : CostScoreData{};
    xAxis->setLabel(m_data.inUsd ? tr("total cost (USD)") : tr("total tokens (no cost stored)"));
    yAxis->setLabel(m_measure == ScoreMeasure::PassRate
                        ? tr("pass rate (%, weighted overall)")
                        : tr("fast_1 vs eager (%, weighted overall)"));
    double most = 0;
    for (std::size_t i = 0; i < m_data.points.size(); ++i) {
        const auto& point = m_data.points[i];
        const QColor color = seriesColor(static_cast<int>(i));
        QCPGraph* graph = addGraph();
        graph->setName(point.model);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 9));
        graph->addData(point.spend, point.score * 100.0);
        auto* label = new QCPItemText(this);
        label->position->setCoords(point.spend, point.score * 100.0);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setPadding(QMargins(6, 0, 0, 4));
        label->setText(point.model);
        label->setColor(palette().color(QPalette::WindowText));
        most = std::max(most, point.spend);
    }
    m_emptyText = m_data.points.empty() ? tr("no models in this scope")
                  : most <= 0           ? tr("no tokens or cost recorded in this scope")
                                        : QString();
    if (!m_emptyText.isEmpty())
        addEmptyStateText(this, m_emptyText);
    // Plain numbers while they stay short; token counts in the millions as powers of ten.
    const bool huge = most >= 1e6;
    xAxis->setNumberFormat(huge ? QStringLiteral("gb") : QStringLiteral("f"));
    xAxis->setNumberPrecision(huge ? 2 : (m_data.inUsd && most < 100 ? 2 : 0));
    // Room on the right for the name of the costliest model.
    // With nothing spent, the points sit on the axis and 0..1 ticks stay whole.
    xAxis->setRange(most > 0 ? 0.0 : -0.5, most > 0 ? most * 1.3 : 1.5);
    xAxis->setTickLabels(most > 0);
    yAxis->setRange(0, 110);
    legend->setVisible(false);
    replot();
}

} // namespace kb::gui
