#include "plotexport.h"

#include "qcp.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSvgGenerator>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::PlotExport", text);
}

bool saveSvg(QCustomPlot* plot, const QString& path, int width, int height) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(plot->windowTitle());
    generator.setDescription(QStringLiteral("KernelBench Studio plot"));
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    plot->toPainter(&painter, width, height);
    return painter.end();
}

} // namespace

QString plotExportFilter() {
    return tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
}

QString exportPlot(QCustomPlot* plot, const QString& path, int width, int height) {
    const int w = width > 0 ? width : plot->width();
    const int h = height > 0 ? height : plot->height();
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("png"))
        ok = plot->savePng(path, w, h, 1.0);
    else if (suffix == QLatin1String("pdf"))
        ok = plot->savePdf(path, w, h);
    else if (suffix == QLatin1String("svg"))
        ok = saveSvg(plot, path, w, h);
    else
        return tr("Unknown image format \"%1\": use .png, .svg or .pdf.").arg(suffix);
    if (!ok || !QFileInfo(path).exists() || QFileInfo(path).size() == 0)
        return tr("Could not write %1.").arg(QDir::toNativeSeparators(path));
    return {};
}

} // namespace kb::gui
