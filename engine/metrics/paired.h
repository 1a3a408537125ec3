#pragma once

#include "outcome.h"
#include "stats.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::metrics {

struct PairedOptions {
    Baseline baseline = Baseline::Eager;
    // Per-task ratio r = sA / sB is a tie when 1 / (1 + tieBand) <= r <= 1 + tieBand.
    double tieBand = 0.02;
    int bootstrapResamples = kDefaultBootstrapResamples;
    double confidence = 0.95;
    std::uint64_t seed = kDefaultBootstrapSeed;
};

enum class TaskComparison { Win, Tie, Loss }; // from A's side

struct PairedTask {
    std::string taskId;
    int level = 1;
    double speedupA = 1.0; // best speedup, 1.0 when failed or untimed
    double speedupB = 1.0;
    bool correctA = false; // false: speedupA is the 1.0 fallback of a failed task
    bool correctB = false;
    double ratio = 1.0; // speedupA / speedupB
    TaskComparison comparison = TaskComparison::Tie;
};

enum class PairedVerdict {
    ABetter,       // CI of the geomean ratio lies entirely above 1
    BBetter,       // CI lies entirely below 1
    Tied,          // CI includes 1
    NoSharedTasks, // nothing to compare
};

struct PairedComparison {
    std::string modelA;
    std::string modelB;
    std::vector<PairedTask> tasks; // shared tasks, ordered by level then task id
    int onlyA = 0;                 // tasks attempted by A alone (not compared)
    int onlyB = 0;
    int wins = 0;
    int ties = 0;
    int losses = 0;
    std::optional<double> geomeanRatio; // exp(mean log ratio) over shared tasks
    std::optional<Interval> ratioCi;    // percentile bootstrap over shared tasks
    double signTestP = 1.0;             // exact two-sided, ties dropped
    PairedVerdict verdict = PairedVerdict::NoSharedTasks;

    int sharedTasks() const { return static_cast<int>(tasks.size()); }
};

// "A better", "B better", "tied (CI includes 1)", "no shared tasks".
std::string verdictText(PairedVerdict verdict);

// Paired comparison of two models (outcomesA / outcomesB each hold one model's outcomes) on the
// tasks both attempted. See docs/metrics.md for the definitions.
PairedComparison comparePaired(const std::vector<AttemptOutcome>& outcomesA,
                               const std::vector<AttemptOutcome>& outcomesB,
                               const PairedOptions& options = {});

} // namespace kb::metrics
