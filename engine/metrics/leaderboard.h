#pragma once

#include "outcome.h"
#include "stats.h"
#include "taskresult.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kb::metrics {

// The level number of the weighted overall rows.
inline constexpr int kOverallLevel = 0;

struct LeaderboardOptions {
    // Task count of each level of the suite (the denominator of every rate). Where a level is
    // absent (or <= 0), the distinct task ids seen at that level across all models are used.
    std::map<int, int> tasksPerLevel;
    // Thresholds of fast_p, reported against eager and compile.
    std::vector<double> pValues{1.0, 1.05};
    // Weights of the overall row (CUDA-Agent Table 1: the level sizes of KernelBench). A level
    // missing here weighs its task count; a weight <= 0 leaves the level out of the overall.
    std::map<int, double> levelWeights{{1, 100.0}, {2, 100.0}, {3, 50.0}, {4, 0.0}};
    // Confidence of the Wilson interval of the pass rate (and of the optional bootstrap).
    double confidence = 0.95;
    // Percentile-bootstrap intervals of the geomeans vs eager and vs compile, per level and
    // (stratified by level, with the level weights) overall. Off by default; reports turn it on.
    bool bootstrapGeomean = false;
    int bootstrapResamples = kDefaultBootstrapResamples;
    std::uint64_t bootstrapSeed = kDefaultBootstrapSeed;
    // k values of pass@k. Empty: 1, and the largest number of samples a task has when that is
    // above 1 (reports show pass@1 and pass@k wherever k samples exist).
    std::vector<int> passAtKs;
};

// pass@k of one cell (see passatk.h): the mean over the level's tasks of the unbiased
// estimator; missing tasks score 0; tasks with fewer than k (but some) samples are left out.
struct PassAtKValue {
    int k = 1;
    std::optional<double> value; // nullopt when no task has k samples
    int tasksWithTooFewSamples = 0;
};

struct FastPValue {
    double p = 1.0;
    double vsEager = 0.0;
    std::optional<double> vsCompile; // nullopt when the level has no compile baseline
};

// One model on one level, or (level == kOverallLevel) the model's weighted overall.
struct LeaderboardCell {
    std::string model;
    int level = 1;

    int tasks = 0;     // denominator: the level's task count (never below the tasks seen)
    int attempted = 0; // tasks with at least one attempted sample
    int built = 0;     // tasks with a sample past the build
    int correct = 0;   // tasks whose best sample is correct (see definitions)
    int timed = 0;     // correct tasks with a usable eager speedup

    double passRate = 0.0; // correct / tasks (overall: weighted)
    std::optional<Interval> passRateCi;

    std::vector<FastPValue> fastP; // one per LeaderboardOptions::pValues, same order

    std::optional<double> geomeanEager;           // over correct, timed tasks
    std::optional<double> geomeanCompile;         // over correct tasks with a compile speedup
    std::optional<double> geomeanFallbackEager;   // every task; failed/untimed count 1.0
    std::optional<double> geomeanFallbackCompile; // same, when a compile baseline exists
    std::optional<double> medianEager;
    std::optional<double> medianCompile;
    // With LeaderboardOptions::bootstrapGeomean: level cells bootstrap their tasks, the overall
    // cell bootstraps each weighted level's tasks within the level (stratified).
    std::optional<Interval> geomeanEagerCi;
    std::optional<Interval> geomeanCompileCi;
    std::vector<PassAtKValue> passAtK; // one per Leaderboard::passAtKs, same order

    int suspicious = 0;         // attempts flagged suspicious and not accepted (excluded)
    int acceptedSuspicious = 0; // attempts flagged suspicious and accepted (scored)
    int rejected = 0;           // attempts with verdict Rejected (excluded)
    int noisy = 0;              // scoring attempts whose timing missed its precision target

    long long inputTokens = 0;
    long long outputTokens = 0;
    double costUsd = 0;
    long long turns = 0;
    double wallSeconds = 0;

    // The fast_p entry for threshold p (compared with a 1e-9 tolerance), or nullptr.
    const FastPValue* fastPAt(double p) const;
    // The pass@k entry for k, or nullptr.
    const PassAtKValue* passAtKAt(int k) const;
};

struct Leaderboard {
    std::vector<std::string> models;      // sorted byte-wise
    std::vector<int> levels;              // ascending
    std::map<int, int> tasksPerLevel;     // denominators used
    std::map<int, double> levelWeights;   // weight applied to each level in the overall (0 = out)
    std::map<int, bool> compileAvailable; // whether any outcome of the level has a compile speedup
    std::vector<double> pValues;
    std::vector<int> passAtKs;            // ascending
    std::vector<LeaderboardCell> cells;   // model x level, ordered by level then model
    std::vector<LeaderboardCell> overall; // one per model, in models order

    // The cell of (model, level); level == kOverallLevel finds the overall row.
    const LeaderboardCell* find(std::string_view model, int level) const;
};

// Builds the leaderboard. See docs/metrics.md (definitionsMarkdown()) for every definition.
Leaderboard computeLeaderboard(const std::vector<AttemptOutcome>& outcomes,
                               const LeaderboardOptions& options = {});

// The same from outcomes already collapsed per task (resolveTasks, or the same reduction done
// elsewhere, e.g. in SQL), with the levels where any outcome, scoring or not, has a usable
// compile speedup. Only TaskResult::bestSampleIndex is not used.
Leaderboard computeLeaderboard(std::vector<TaskResult> tasks, const std::set<int>& compileLevels,
                               const LeaderboardOptions& options = {});

} // namespace kb::metrics
