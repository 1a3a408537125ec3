#pragma once
// Shared look of every plot: colours from the widget palette (so plots follow light and dark
// themes), one distinct colour per model.

#include <QColor>
#include <QPalette>
#include <QSharedPointer>

class QCustomPlot;
class QCPAxisTickerLog;
class QString;

namespace kb::gui {

// Background, axes, grid and legend in the palette's colours.
void applyPlotPalette(QCustomPlot* plot, const QPalette& palette);
// A colour per series index, distinguishable in both themes (Tableau 10).
QColor seriesColor(int index);
// A line of text centred on the axis rect, for a plot with nothing to draw.
void addEmptyStateText(QCustomPlot* plot, const QString& text);
// Ticks at powers of two without sub-ticks, for speedup axes (1x, 2x, 0.5x, ...).
QSharedPointer<QCPAxisTickerLog> log2Ticker();

} // namespace kb::gui
