#include "headtoheadplot.h"

#include "plotstyle.h"

#include <algorithm>

namespace kb::gui {

HeadToHeadPlot::HeadToHeadPlot(QWidget* parent)
    : QCustomPlot(parent) {
    setMinimumSize(240, 200);
    setWindowTitle(tr("Head to head"));
    rebuild();
}

void HeadToHeadPlot::setComparison(ComparisonPtr comparison) {
    m_comparison = std::move(comparison);
    rebuild();
}

int HeadToHeadPlot::pointCount() const {
    int n = 0;
    for (int i = 0; i < graphCount(); ++i)
        n += graph(i)->dataCount();
    return n;
}

void HeadToHeadPlot::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild();
}

void HeadToHeadPlot::rebuild() {
    clearGraphs();
    clearItems();
    applyPlotPalette(this, palette());
    for (QCPAxis* axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(log2Ticker());
        axis->setNumberFormat(QStringLiteral("g"));
        axis->setNumberPrecision(3);
    }
    const QString a = m_comparison ? QString::fromStdString(m_comparison->modelA) : tr("A");
    const QString b = m_comparison ? QString::fromStdString(m_comparison->modelB) : tr("B");
    xAxis->setLabel(tr("%1: speedup (log₂)").arg(b));
    yAxis->setLabel(tr("%1: speedup (log₂)").arg(a));

    struct Group {
        metrics::TaskComparison comparison;
        QString name;
        QColor color;
    };
    const Group groups[] = {
        {metrics::TaskComparison::Win, tr("%1 faster").arg(a), seriesColor(0)},
        {metrics::TaskComparison::Loss, tr("%1 faster").arg(b), seriesColor(1)},
        {metrics::TaskComparison::Tie, tr("tie"), palette().color(QPalette::PlaceholderText)}};
    double lo = 0.5;
    double hi = 2.0;
    for (const auto& group : groups) {
        QVector<double> xs;
        QVector<double> ys;
        if (m_comparison) {
            for (const auto& t : m_comparison->tasks) {
                if (t.comparison != group.comparison)
                    continue;
                xs << t.speedupB;
                ys << t.speedupA;
                lo = std::min({lo, t.speedupA, t.speedupB});
                hi = std::max({hi, t.speedupA, t.speedupB});
            }
        }
        QCPGraph* g = addGraph();
        g->setName(group.name);
        g->setPen(QPen(group.color));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, group.color, 7));
        g->setData(xs, ys, true);
    }
    auto* diagonal = new QCPItemStraightLine(this);
    diagonal->point1->setCoords(1, 1);
    diagonal->point2->setCoords(2, 2);
    diagonal->setPen(QPen(palette().color(QPalette::WindowText), 1, Qt::DashLine));
    xAxis->setRange(lo / 1.5, hi * 1.5);
    yAxis->setRange(lo / 1.5, hi * 1.5);
    legend->setVisible(m_comparison && !m_comparison->tasks.empty());
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    replot();
}

} // namespace kb::gui
