#pragma once
// One entry point for every text export (`kbstudio-cli export`, the GUI's export dialog): the
// format names, what each needs loaded, rendering, and writing the file atomically.
// PDF is rendered by the separate report_pdf library (it needs Qt GUI).

#include "htmlreport.h"
#include "reportdata.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

namespace kb::report {

enum class ExportFormat { Html, Pdf, Markdown, Csv, Json, SamplesCsv, KernelBench, LeaderboardCsv };

// "html", "pdf", "markdown", "csv", "json", "samples-csv", "kernelbench", "leaderboard-csv".
QStringList exportFormatNames();
QString exportFormatName(ExportFormat format);
std::optional<ExportFormat> exportFormatFromName(const QString& name);

// What loadReportData must load for the format.
LoadOptions loadOptionsFor(ExportFormat format);

// Renders any format but Pdf (engine::Error for Pdf, and for what a format cannot hold, e.g.
// several models in the KernelBench format).
QByteArray renderExport(ExportFormat format, const ReportData& data, const HtmlOptions& html = {});

// Writes the whole file or nothing (QSaveFile). Returns an empty string on success, else a
// readable message naming the path.
QString writeFileAtomically(const QString& path, const QByteArray& bytes);

} // namespace kb::report
