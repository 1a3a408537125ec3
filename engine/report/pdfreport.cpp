#include "pdfreport.h"

#include "exporter.h"

#include <QBuffer>
#include <QGuiApplication>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>

#ifdef KBSTUDIO_PDF_HAS_SVG
#include <QSvgRenderer>
#endif

namespace kb::report {

namespace {

QImage rasterise(const ReportPlot& plot) {
    // Twice the nominal size keeps lines sharp; the <img> size attributes set the printed size.
    QImage image(plot.width * 2, plot.height * 2, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
#ifdef KBSTUDIO_PDF_HAS_SVG
    QSvgRenderer renderer(plot.svg.toUtf8());
    renderer.render(&painter);
#else
    painter.drawText(
        image.rect(), Qt::AlignCenter,
        QStringLiteral("%1\n(chart not available: built without Qt SVG)").arg(plot.caption));
#endif
    return image;
}

} // namespace

QByteArray renderPdfReport(const ReportData& data, const HtmlOptions& options) {
    HtmlOptions pdfOptions = options;
    pdfOptions.imagePlaceholders = true;
    pdfOptions.narrowPage = true;
    QTextDocument document;
    for (const auto& plot : reportPlots(data)) {
        document.addResource(QTextDocument::ImageResource,
                             QUrl(QStringLiteral("kbplot:") + plot.id), rasterise(plot));
    }
    document.setHtml(htmlReport(data, pdfOptions));

    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setTitle(options.title);
    writer.setCreator(QStringLiteral("KernelBench Studio"));
    writer.setResolution(150);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape,
                                     QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter));
    document.print(&writer);
    buffer.close();
    return bytes;
}

QString writePdfReport(const ReportData& data, const QString& path, const HtmlOptions& options) {
    if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
        return QStringLiteral("the PDF report needs a QGuiApplication");
    return writeFileAtomically(path, renderPdfReport(data, options));
}

} // namespace kb::report
