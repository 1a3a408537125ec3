#include "exporter.h"

#include "core/error.h"
#include "csvexport.h"
#include "jsonexport.h"
#include "kernelbenchexport.h"
#include "leaderboardformat.h"
#include "pairedsection.h"
#include "runsettingssummary.h"
#include "usagesection.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

namespace kb::report {

namespace {
struct FormatName {
    ExportFormat format;
    const char* name;
};
constexpr FormatName kFormats[] = {
    {ExportFormat::Html, "html"},
    {ExportFormat::Pdf, "pdf"},
    {ExportFormat::Markdown, "markdown"},
    {ExportFormat::Csv, "csv"},
    {ExportFormat::Json, "json"},
    {ExportFormat::SamplesCsv, "samples-csv"},
    {ExportFormat::KernelBench, "kernelbench"},
    {ExportFormat::LeaderboardCsv, "leaderboard-csv"},
};
} // namespace

QStringList exportFormatNames() {
    QStringList names;
    for (const auto& f : kFormats)
        names << QString::fromLatin1(f.name);
    return names;
}

QString exportFormatName(ExportFormat format) {
    for (const auto& f : kFormats) {
        if (f.format == format)
            return QString::fromLatin1(f.name);
    }
    return {};
}

std::optional<ExportFormat> exportFormatFromName(const QString& name) {
    for (const auto& f : kFormats) {
        if (name == QLatin1String(f.name))
            return f.format;
    }
    return std::nullopt;
}

LoadOptions loadOptionsFor(ExportFormat format) {
    LoadOptions options;
    options.timingSamples = format == ExportFormat::Json || format == ExportFormat::SamplesCsv;
    return options;
}

QByteArray renderExport(ExportFormat format, const ReportData& data, const HtmlOptions& html) {
    switch (format) {
    case ExportFormat::Html:
        return htmlReport(data, html).toUtf8();
    case ExportFormat::Markdown:
        return (runSettingsMarkdown(data.runs) + formatLeaderboardMarkdown(data.leaderboard) +
                (data.paired ? QStringLiteral("\n") + pairedMarkdown(*data.paired) : QString()) +
                QStringLiteral("\n") + usageMarkdown(data))
            .toUtf8();
    case ExportFormat::Csv:
        return attemptsCsv(data);
    case ExportFormat::Json:
        return attemptsJson(data);
    case ExportFormat::LeaderboardCsv:
        return leaderboardCsv(data);
    case ExportFormat::SamplesCsv:
        if (!data.timingSamplesLoaded)
            throw engine::Error(
                QStringLiteral("timing samples were not loaded for the samples export"));
        return timingSamplesCsv(data);
    case ExportFormat::KernelBench:
        return kernelBenchEvalResults(data);
    case ExportFormat::Pdf:
        break;
    }
    throw engine::Error(QStringLiteral("the PDF report is written by writePdfReport, not as text"));
}

QString writeFileAtomically(const QString& path, const QByteArray& bytes) {
    const QFileInfo info(path);
    if (info.isDir())
        return QStringLiteral("cannot write '%1': it is a folder").arg(path);
    if (!info.absoluteDir().exists())
        return QStringLiteral("cannot write '%1': the folder '%2' does not exist")
            .arg(path, QDir::toNativeSeparators(info.absolutePath()));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write '%1': %2").arg(path, file.errorString());
    if (file.write(bytes) != bytes.size() || !file.commit())
        return QStringLiteral("cannot write '%1': %2").arg(path, file.errorString());
    return {};
}

} // namespace kb::report
