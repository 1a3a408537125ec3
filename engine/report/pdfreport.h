#pragma once
// The report as PDF: the HTML report laid out by QTextDocument on a QPdfWriter, with the charts
// rasterised from their SVG. Lives in its own library (report_pdf) because it needs Qt GUI;
// callers must have a QGuiApplication (the offscreen platform is enough).

#include "htmlreport.h"
#include "reportdata.h"

#include <QByteArray>
#include <QString>

namespace kb::report {

// The PDF document's bytes.
QByteArray renderPdfReport(const ReportData& data, const HtmlOptions& options = {});

// Renders and writes atomically; returns an empty string or a readable error.
QString writePdfReport(const ReportData& data, const QString& path,
                       const HtmlOptions& options = {});

} // namespace kb::report
