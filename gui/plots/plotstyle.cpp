#include "plotstyle.h"

#include "qcp.h"

#include <array>

namespace kb::gui {

namespace {

void styleAxis(QCPAxis* axis, const QPalette& palette) {
    const QColor text = palette.color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlphaF(0.18f);
    QColor subGrid = text;
    subGrid.setAlphaF(0.07f);
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(subGrid, 0, Qt::DotLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

} // namespace

void applyPlotPalette(QCustomPlot* plot, const QPalette& palette) {
    plot->setBackground(palette.color(QPalette::Base));
    for (QCPAxis* axis : plot->axisRect()->axes())
        styleAxis(axis, palette);
    plot->legend->setBrush(palette.color(QPalette::Base));
    plot->legend->setBorderPen(QPen(palette.color(QPalette::Mid)));
    plot->legend->setTextColor(palette.color(QPalette::WindowText));
}

QColor seriesColor(int index) {
    static const std::array<QRgb, 10> colors = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2,
                                                0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    return QColor::fromRgb(colors[static_cast<std::size_t>(index) % colors.size()]);
}

void addEmptyStateText(QCustomPlot* plot, const QString& text) {
    auto* label = new QCPItemText(plot);
    label->position->setType(QCPItemPosition::ptAxisRectRatio);
    label->position->setAxisRect(plot->axisRect());
    label->position->setCoords(0.5, 0.5);
    label->setPositionAlignment(Qt::AlignCenter);
    label->setClipToAxisRect(false);
    label->setText(text);
    label->setColor(plot->palette().color(QPalette::PlaceholderText));
}

QSharedPointer<QCPAxisTickerLog> log2Ticker() {
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(2);
    ticker->setSubTickCount(0);
    return ticker;
}

} // namespace kb::gui
