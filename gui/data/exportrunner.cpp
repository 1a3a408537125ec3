#include "exportrunner.h"

#include "core/error.h"
#include "db/database.h"
#include "models/resultsfilterproxy.h"
#include "report/kernelbenchexport.h"
#include "report/pdfreport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::ExportRunner", text);
}

struct ExportOutcome {
    QString error;
    QString summary;
};

} // namespace

GuiExportFilter exportFilterFor(const ResultsFilterProxy& proxy, db::Id runScope) {
    GuiExportFilter out;
    out.filter.runId = runScope;
    QStringList parts{runScope == 0 ? tr("every run") : tr("run %1").arg(runScope)};
    if (!proxy.modelName().isEmpty()) {
        out.filter.models = {proxy.modelName()};
        parts << tr("model %1").arg(proxy.modelName());
    }
    if (proxy.level() != 0) {
        out.filter.levels = {proxy.level()};
        parts << tr("level %1").arg(proxy.level());
    }
    using V = ResultsFilterProxy::VerdictFilter;
    switch (proxy.verdictFilter()) {
    case V::All:
        break;
    case V::Correct:
        out.filter.verdicts = {QStringLiteral("correct")};
        break;
    case V::Failed:
        out.filter.verdicts = {
            QStringLiteral("incorrect"),      QStringLiteral("build_error"),
            QStringLiteral("runtime_error"),  QStringLiteral("timeout"),
            QStringLiteral("rejected"),       QStringLiteral("invalid_candidate"),
            QStringLiteral("no_candidate"),   QStringLiteral("harness_error"),
            QStringLiteral("provider_error"), QStringLiteral("infra_error")};
        break;
    case V::Pending:
        out.filter.verdicts = {QStringLiteral("pending")};
        break;
    case V::Faster:
    case V::Slower:
        out.filter.verdicts = {QStringLiteral("correct")};
        out.note = tr("Exports select by stored verdict: every correct attempt is exported, not "
                      "only the %1 ones.")
                       .arg(ResultsFilterProxy::verdictFilterKey(proxy.verdictFilter()));
        break;
    case V::Suspicious:
        out.note = tr("Exports select by stored verdict: suspicious attempts are marked in every "
                      "export, so all "
                      "verdicts are exported.");
        break;
    }
    if (!out.filter.verdicts.isEmpty())
        parts << tr("verdicts: %1").arg(out.filter.verdicts.join(QStringLiteral(", ")));
    if (proxy.flaggedOnly() || proxy.speedupMin() > 0 || proxy.speedupMax() > 0)
        out.note += (out.note.isEmpty() ? QString() : QStringLiteral(" ")) +
                    tr("The flagged-task and speedup-range filters are not part of exports.");
    if (!proxy.searchText().isEmpty())
        out.note += (out.note.isEmpty() ? QString() : QStringLiteral(" ")) +
                    tr("The text search is not part of exports.");
    out.description = parts.join(QStringLiteral(" · "));
    return out;
}

std::optional<GuiExportFilter> compareExportFilter(const CompareSide& a, const CompareSide& b) {
    if (a.runId != b.runId || a.model.isEmpty() || b.model.isEmpty() || a.model == b.model)
        return std::nullopt;
    GuiExportFilter f;
    f.filter.runId = a.runId;
    f.filter.models = {a.model, b.model};
    f.filter.compare = {a.model, b.model};
    f.description =
        tr("%1 · %2 vs %3 with their paired comparison")
            .arg(a.runId == 0 ? tr("every run") : tr("run %1").arg(a.runId), a.model, b.model);
    return f;
}

GuiExportFilter kernelBenchRunsFilter(db::Id runScope) {
    GuiExportFilter f;
    f.filter.runId = runScope;
    f.description = tr("%1 · every model and level")
                        .arg(runScope == 0 ? tr("every run") : tr("run %1").arg(runScope));
    return f;
}

QString defaultExportFileName(report::ExportFormat format) {
    switch (format) {
    case report::ExportFormat::Html:
        return QStringLiteral("report.html");
    case report::ExportFormat::Pdf:
        return QStringLiteral("report.pdf");
    case report::ExportFormat::Markdown:
        return QStringLiteral("leaderboard.md");
    case report::ExportFormat::Csv:
        return QStringLiteral("attempts.csv");
    case report::ExportFormat::Json:
        return QStringLiteral("attempts.json");
    case report::ExportFormat::SamplesCsv:
        return QStringLiteral("samples.csv");
    case report::ExportFormat::KernelBench:
        return QStringLiteral("eval_results.json");
    case report::ExportFormat::LeaderboardCsv:
        return QStringLiteral("leaderboard.csv");
    }
    return QStringLiteral("export");
}

ExportRunner::ExportRunner(QObject* parent)
    : QObject(parent) {}

void ExportRunner::start(const QString& databasePath, report::ExportFormat format,
                         const report::ExportFilter& filter, const QString& outPath,
                         const report::HtmlOptions& html) {
    report::HtmlOptions options = html;
    if (options.generatedAt.isEmpty())
        options.generatedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    m_tracker.start(
        [databasePath, format, filter, outPath, options]() {
            ExportOutcome o;
            try {
                db::Database database(databasePath.toStdString(), db::Database::Access::ReadOnly);
                const auto data = report::loadReportData(database.connection(), filter,
                                                         report::loadOptionsFor(format));
                o.error = format == report::ExportFormat::Pdf
                              ? report::writePdfReport(data, outPath, options)
                              : report::writeFileAtomically(
                                    outPath, report::renderExport(format, data, options));
                o.summary =
                    tr("Wrote %1 to %2 (%3 attempts).")
                        .arg(report::exportFormatName(format), QDir::toNativeSeparators(outPath))
                        .arg(data.attempts.size());
            } catch (const engine::Error& e) {
                o.error = e.message();
            } catch (const std::exception& e) {
                o.error = tr("Export failed: %1").arg(QString::fromUtf8(e.what()));
            }
            return o;
        },
        [this](ExportOutcome o) {
            Q_EMIT finished(o.error, o.error.isEmpty() ? o.summary : QString());
        });
}

void ExportRunner::startKernelBenchRuns(const QString& databasePath,
                                        const report::ExportFilter& filter, const QString& dir) {
    m_tracker.start(
        [databasePath, filter, dir]() {
            ExportOutcome o;
            try {
                db::Database database(databasePath.toStdString(), db::Database::Access::ReadOnly);
                const auto data = report::loadReportData(
                    database.connection(), filter,
                    report::loadOptionsFor(report::ExportFormat::KernelBench));
                QStringList written;
                o.error = report::writeKernelBenchRuns(dir, data, &written);
                o.summary = tr("Wrote KernelBench run folders to %1 (%2 files, %3 attempts).")
                                .arg(QDir::toNativeSeparators(dir))
                                .arg(written.size())
                                .arg(data.attempts.size());
            } catch (const engine::Error& e) {
                o.error = e.message();
            } catch (const std::exception& e) {
                o.error = tr("Export failed: %1").arg(QString::fromUtf8(e.what()));
            }
            return o;
        },
        [this](ExportOutcome o) {
            Q_EMIT finished(o.error, o.error.isEmpty() ? o.summary : QString());
        });
}

} // namespace kb::gui
