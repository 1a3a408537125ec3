#include "turnsspeedupplot.h"

#include "plotstyle.h"

#include <algorithm>
#include <map>

namespace kb::gui {

namespace {

QSharedPointer<QCPAxisTickerFixed> wholeTicker() {
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    ticker->setTickCount(8);
    return ticker;
}

} // namespace

TurnsSpeedupPlot::TurnsSpeedupPlot(QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumSize(240, 200);
    setWindowTitle(tr("Turns vs speedup"));
    rebuild();
}

void TurnsSpeedupPlot::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    m_snapshot = std::move(snapshot);
    m_runId = runId;
    rebuild();
}

void TurnsSpeedupPlot::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild();
}

void TurnsSpeedupPlot::rebuild() {
    clearGraphs();
    clearItems();
    applyPlotPalette(this, palette());
    m_data = m_snapshot ? turnsSpeedupPoints(*m_snapshot, m_runId) : TurnsSpeedupData{};
    xAxis->setLabel(tr("turns"));
    xAxis->setTicker(wholeTicker());
    xAxis->setSubTicks(false);
    yAxis->setLabel(tr("speedup vs eager (log₂)"));
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setTicker(log2Ticker());
    yAxis->setNumberFormat(QStringLiteral("g"));
    yAxis->setNumberPrecision(3);

    std::map<QString, std::pair<QVector<double>, QVector<double>>> byModel;
    int turns = 1;
    double lo = 0.5;
    double hi = 2.0;
    for (const auto& point : m_data.points) {
        auto& [xs, ys] = byModel[point.model];
        xs << point.turns;
        ys << point.speedup;
        turns = std::max(turns, point.turns);
        lo = std::min(lo, point.speedup);
        hi = std::max(hi, point.speedup);
    }
    int index = 0;
    for (auto& [model, xy] : byModel) {
        const QColor color = seriesColor(index++);
        QCPGraph* graph = addGraph();
        graph->setName(model);
        graph->setPen(QPen(color));
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 7));
        graph->setData(xy.first, xy.second);
    }
    if (m_data.attempts == 0)
        m_emptyText = tr("no multi-turn or agent attempts in this scope");
    else if (m_data.points.empty())
        m_emptyText = tr("no correct, timed multi-turn or agent attempts in this scope");
    else
        m_emptyText.clear();
    if (!m_emptyText.isEmpty()) {
        addEmptyStateText(this, m_emptyText);
    } else {
        // Only with points: the 1× line would otherwise run through the empty-state text.
        auto* one = new QCPItemStraightLine(this);
        one->point1->setCoords(0, 1);
        one->point2->setCoords(1, 1);
        one->setPen(QPen(palette().color(QPalette::WindowText), 1, Qt::DashLine));
    }
    xAxis->setRange(0.5, turns + 0.5);
    yAxis->setRange(lo / 1.5, hi * 1.5);
    legend->setVisible(!m_data.points.empty());
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    replot();
}

} // namespace kb::gui
