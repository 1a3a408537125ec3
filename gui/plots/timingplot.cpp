#include "timingplot.h"

#include "data/format.h"
#include "plotstyle.h"

#include <algorithm>

namespace kb::gui {

TimingPlot::TimingPlot(QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumHeight(160);
    setWindowTitle(tr("Timing samples"));
    rebuild();
}

void TimingPlot::setSnapshot(AttemptDetailPtr detail) {
    m_detail = std::move(detail);
    rebuild();
}

void TimingPlot::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild();
}

void TimingPlot::rebuild() {
    clearGraphs();
    clearItems();
    m_eagerMedian.reset();
    applyPlotPalette(this, palette());
    xAxis->setLabel(tr("timed trial"));
    yAxis->setLabel(tr("milliseconds"));
    legend->setVisible(false);
    double lo = 0;
    double hi = 1;
    bool any = false;
    if (m_detail) {
        int index = 0;
        for (const auto& series : m_detail->timing) {
            QCPGraph* graph = addGraph();
            graph->setName(
                tr("%1 (median %2)").arg(qs(series.kind), formatMilliseconds(series.medianMs)));
            const QColor color = series.kind == "candidate" ? seriesColor(0)
                                 : series.kind == "eager"   ? seriesColor(1)
                                                            : seriesColor(2 + index);
            graph->setPen(QPen(color));
            graph->setLineStyle(QCPGraph::lsNone);
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 5));
            QVector<double> xs;
            QVector<double> ys;
            for (std::size_t i = 0; i < series.samplesMs.size(); ++i) {
                xs << static_cast<double>(i);
                ys << series.samplesMs[i];
                lo = any ? std::min(lo, series.samplesMs[i]) : series.samplesMs[i];
                hi = any ? std::max(hi, series.samplesMs[i]) : series.samplesMs[i];
                any = true;
            }
            graph->setData(xs, ys, true);
            if (series.kind == "eager")
                m_eagerMedian = series.medianMs;
            ++index;
        }
        legend->setVisible(!m_detail->timing.empty());
    }
    if (m_eagerMedian) {
        auto* line = new QCPItemStraightLine(this);
        line->point1->setCoords(0, *m_eagerMedian);
        line->point2->setCoords(1, *m_eagerMedian);
        line->setPen(QPen(seriesColor(1), 1.5, Qt::DashLine));
        auto* label = new QCPItemText(this);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setTypeY(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(0.01, *m_eagerMedian);
        label->setText(tr("eager median %1").arg(formatMilliseconds(*m_eagerMedian)));
        label->setColor(palette().color(QPalette::WindowText));
        lo = std::min(lo, *m_eagerMedian);
        hi = std::max(hi, *m_eagerMedian);
    }
    rescaleAxes();
    const double pad = std::max((hi - lo) * 0.1, std::abs(hi) * 0.02 + 1e-9);
    yAxis->setRange(std::max(0.0, lo - pad), hi + pad);
    xAxis->setRange(-1, std::max(1.0, xAxis->range().upper + 1));
    replot();
}

} // namespace kb::gui
