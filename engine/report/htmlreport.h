#pragma once
// The self-contained report: one XHTML file with the leaderboard, per-level speedup
// distributions and fast_p curves (inline SVG), the per-task table with attempt ids, the metric
// definitions, the run settings and the environments. It references nothing outside itself.

#include "reportdata.h"

#include <QString>
#include <vector>

namespace kb::report {

struct HtmlOptions {
    QString title = QStringLiteral("KernelBench Studio report");
    QString generatedAt; // shown under the title when set (callers pass UTC ISO time)
    // For QTextDocument (the PDF): no XML prologue, and each plot as <img src="kbplot:ID"/>
    // whose image the caller supplies (see reportPlots).
    bool imagePlaceholders = false;
    // A page too narrow for the leaderboard's ~20 columns in one table (the PDF): each level
    // gets two tables, outcomes and cost, then speed, each led by the model.
    bool narrowPage = false;
};

struct ReportPlot {
    QString id; // "speedups-L1", "fastp-L1", ...
    QString caption;
    QString svg;
    int width = 0;
    int height = 0;
};

// The charts of the report, in the order they appear.
std::vector<ReportPlot> reportPlots(const ReportData& data);

QString htmlReport(const ReportData& data, const HtmlOptions& options = {});

} // namespace kb::report
