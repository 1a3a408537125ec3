#pragma once

#include "outcome.h"
#include "stats.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::metrics {

inline constexpr int kMinPairedSharedTasks = 6;

struct PairedOptions {
    Baseline baseline = Baseline::Eager;
    // Per-task ratio r = sA / sB is a tie when 1 / (1 + tieBand) <= r <= 1 + tieBand.
    double tieBand = 0.02;
    int bootstrapResamples = kDefaultBootstrapResamples;
    double confidence = 0.95;
    std::uint64_t seed = kDefaultBootstrapSeed;
    // Fewest shared tasks for a verdict other than "not enough evidence". With n tasks the
    // smallest p-value a two-sided exact sign test can give is 2 / 2^n: 0.0625 for n = 5,
    // 0.03125 for n = 6, so below 6 no result can be significant at 5 %.
    int minSharedTasks = kMinPairedSharedTasks;
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
    // The 95 % intervals of the two speedups when measured with one (a failed task's 1.0 is
    // exact); a task is a tie when they overlap, whatever the ratio.
    std::optional<SpeedupBounds> boundsA;
    std::optional<SpeedupBounds> boundsB;
    bool tiedByNoise = false; // a tie only because the intervals overlap
    TaskComparison comparison = TaskComparison::Tie;
};

enum class PairedVerdict {
    ABetter,           // enough tasks, CI above 1 and the sign test significant for A
    BBetter,           // enough tasks, CI below 1 and the sign test significant for B
    Tied,              // CI includes 1
    NotSignificant,    // CI excludes 1 but wins and losses do not differ significantly
    NotEnoughEvidence, // fewer shared tasks than PairedOptions::minSharedTasks
    NoSharedTasks,     // nothing to compare
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
    std::optional<double> geomeanRatio;         // exp(mean log ratio) over shared tasks
    std::optional<Interval> ratioCi;            // percentile bootstrap over shared tasks
    double signTestP = 1.0;                     // exact two-sided, ties dropped
    int minSharedTasks = kMinPairedSharedTasks; // the threshold the verdict used
    PairedVerdict verdict = PairedVerdict::NoSharedTasks;

    int sharedTasks() const { return static_cast<int>(tasks.size()); }
};

// "A better", "B better", "tied (CI includes 1)", "tied (sign test not significant)",
// "not enough evidence (fewer than 6 shared tasks)", "no shared tasks".
std::string verdictText(PairedVerdict verdict, int minSharedTasks = kMinPairedSharedTasks);

// Paired comparison of two models (outcomesA / outcomesB each hold one model's outcomes) on the
// tasks both attempted. See docs/metrics.md for the definitions.
PairedComparison comparePaired(const std::vector<AttemptOutcome>& outcomesA,
                               const std::vector<AttemptOutcome>& outcomesB,
                               const PairedOptions& options = {});

} // namespace kb::metrics
