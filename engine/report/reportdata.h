#pragma once
// A filtered, read-only snapshot of what the exports and reports need, loaded from the database
// in a few queries: attempts with their latest evaluation and timing, the environments they ran
// in, the runs' settings and the leaderboard.

#include "../metrics/leaderboard.h"
#include "../metrics/outcome.h"
#include "../metrics/paired.h"
#include "db/records.h"
#include "publishedbaseline.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace kb::db {
class Connection;
}

namespace kb::report {

// Which attempts an export holds. Empty lists select everything.
struct ExportFilter {
    db::Id runId = 0; // 0: every run in the database
    QStringList models;
    QList<int> levels;
    QStringList verdicts; // stored verdict names (correct, build_error, ...)
    // Two model names for the paired comparison section; empty: the selected models when
    // exactly two are selected, else no comparison.
    QStringList compare;
};

// The stored verdict names a --verdicts filter accepts.
QStringList storedVerdictNames();

// One timing series; series.samplesMs is filled only when the samples were loaded.
struct SeriesSummary {
    db::TimingSeriesRow series;
    int sampleCount = 0;
};

// The latest evaluation of one attempt, as far as exports use it.
struct EvaluationSummary {
    db::Id id = 0;
    std::optional<db::Id> environmentId;
    bool correctnessPassed = false;
    int trials = 0;
    int trialsPassed = 0;
    std::optional<double> maxAbsError;
    std::optional<double> maxRelError;
    double harnessSeconds = 0;
    std::string buildStatus; // empty when no build was recorded
    std::optional<double> buildSeconds;
    std::optional<SeriesSummary> candidate;
    std::optional<SeriesSummary> eager;
    std::optional<SeriesSummary> compile;
};

// What generating one attempt cost, summed over its conversation turns, and who served it.
struct AttemptUsage {
    std::optional<double> costUsd; // nullopt when no turn was priced
    long long cacheReadTokens = 0;
    long long cacheWriteTokens = 0;
    double latencyMs = 0; // summed request latency
    int calls = 0;        // turns that made a provider request (latency > 0 or tokens)
    std::string provider; // provider name
    std::string providerKind;
    std::string baseUrlHost; // host[:port] of the provider's base URL; empty for offline ones
    // turn_details: the time to first token of its streamed turns, and the model snapshots the
    // provider named (distinct, in turn order)
    double ttftSumMs = 0;
    int ttftTurns = 0; // turns with a time to first token (streamed answers)
    std::vector<std::string> modelSnapshots;
    std::optional<double> meanTtftMs() const {
        return ttftTurns > 0 ? std::optional<double>(ttftSumMs / ttftTurns) : std::nullopt;
    }
    // copied from the attempt, for per-model sums
    std::string model;
    long long inputTokens = 0;
    long long outputTokens = 0;
};

struct AttemptRecord {
    db::AttemptRow attempt;
    AttemptUsage usage;
    std::optional<EvaluationSummary> evaluation;
    std::vector<db::FindingRow> findings;
    metrics::AttemptOutcome outcome; // what the metrics see (review applied)
    bool scores = false;             // counts as a correct sample in the metrics
    // vs KernelBench's published eager time on the same GPU model, when one was imported
    std::optional<PublishedComparison> published;
};

// Enough of an attempt to point at it from a per-task row.
struct TaskAttemptRef {
    db::Id id = 0;
    int sampleIndex = 0;
    std::string verdict;
    bool matchesFilter = true; // passes the verdict filter
    bool scores = false;       // counts as a correct sample in the metrics
};

struct ReportData {
    ExportFilter filter;
    std::vector<db::RunRow> runs;                 // the runs the snapshot covers, by id
    std::vector<AttemptRecord> attempts;          // model/level/verdict filtered, in export order
    std::vector<db::EnvironmentRow> environments; // used by the attempts, by id
    // Metrics are computed over every attempt of the selected models and levels; the verdict
    // filter selects rows only (a verdict filter would falsify every rate).
    std::vector<metrics::AttemptOutcome> outcomes;
    std::map<int, int> tasksPerLevel; // task count per selected level, over all models
    metrics::Leaderboard leaderboard;
    // Usage of every attempt behind the metrics (not only the verdict-filtered rows), by id.
    std::map<db::Id, AttemptUsage> usageByAttempt;
    // Speedup vs the published baseline of every attempt behind the metrics that has one, by id.
    std::map<db::Id, PublishedComparison> publishedByAttempt;
    // The paired comparison of the two compared models (see comparedModels), over `outcomes`.
    std::optional<metrics::PairedComparison> paired;
    // Attempts per (model, level, task key), over the same attempts as the metrics, by sample.
    std::map<std::tuple<std::string, int, std::string>, std::vector<TaskAttemptRef>> attemptsByTask;

    bool timingSamplesLoaded = false; // SeriesSummary::series.samplesMs are filled

    const db::EnvironmentRow* environment(db::Id id) const;
    const AttemptRecord* attemptById(db::Id id) const;
};

// A run's stored settings as reports show them: the secret per-run seed is left out (a
// published seed would let the next model be tuned against the exact inputs).
QJsonObject publicRunSettings(const db::RunRow& run);

struct LoadOptions {
    bool timingSamples = false; // load every timing sample (samples exports, JSON)
};

// Loads the snapshot. Throws engine::Error with a readable message for an unknown run, a model
// that is not in the selected runs, a level outside 1..4, an unknown verdict name or a compare
// list that is not two different selected models, and
// db::Error for database failures.
ReportData loadReportData(db::Connection& conn, const ExportFilter& filter,
                          const LoadOptions& options = {});

} // namespace kb::report
