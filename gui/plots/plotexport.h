#pragma once
// Saves a plot as PNG, SVG or PDF, chosen by the file's suffix.

#include <QString>

class QCustomPlot;

namespace kb::gui {

// The file-dialog filter of the supported formats.
QString plotExportFilter();
// Writes the plot at its current size (or width x height when given). Returns an empty string
// on success, else a readable error.
QString exportPlot(QCustomPlot* plot, const QString& path, int width = 0, int height = 0);

} // namespace kb::gui
