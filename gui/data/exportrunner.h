#pragma once
// File → Export…: which attempts the Results page's filter selects, as an export filter, and
// the export itself, written off the GUI thread with the same code as `kbstudio-cli export`.

#include "comparison.h"
#include "jobtracker.h"
#include "report/exporter.h"
#include "report/reportdata.h"

#include <QObject>
#include <QString>
#include <optional>

namespace kb::gui {

class ResultsFilterProxy;

struct GuiExportFilter {
    report::ExportFilter filter;
    QString description; // "run 3 · model demo-a · level 1 · verdicts: correct"
    QString note;        // what the export cannot reproduce of the page's filter, if anything
};

// The Results page's filter (level, model, verdict) over the run in scope (0 = every run).
GuiExportFilter exportFilterFor(const ResultsFilterProxy& proxy, db::Id runScope);

// Two different models of one run (the Compare page's sides) with their paired comparison;
// nullopt when the sides are not that.
std::optional<GuiExportFilter> compareExportFilter(const CompareSide& a, const CompareSide& b);

// The selection of the KernelBench run-folder export: every model and level of the run in
// scope (0 = every run).
GuiExportFilter kernelBenchRunsFilter(db::Id runScope);

// "report.html", "leaderboard.md", "attempts.csv", ... for a format.
QString defaultExportFileName(report::ExportFormat format);

class ExportRunner : public QObject {
    Q_OBJECT
public:
    explicit ExportRunner(QObject* parent = nullptr);
    // Starts writing; finished() follows. A newer export supersedes one still running.
    void start(const QString& databasePath, report::ExportFormat format,
               const report::ExportFilter& filter, const QString& outPath,
               const report::HtmlOptions& html = {});
    // KernelBench's layout for every model and level of the selection: one run folder
    // <dir>/<model>_level<L>/eval_results.json each and the index kbstudio_runs.json, as
    // `kbstudio-cli export --format kernelbench --out DIR/`. A run folder already in dir is
    // never written over: the export is refused and dir left as it was.
    void startKernelBenchRuns(const QString& databasePath, const report::ExportFilter& filter,
                              const QString& dir);
    bool isRunning() const { return m_tracker.isRunning(); }

Q_SIGNALS:
    // error empty on success; summary: "Wrote html to … (9 attempts)".
    void finished(const QString& error, const QString& summary);

private:
    JobTracker m_tracker{this};
};

} // namespace kb::gui
