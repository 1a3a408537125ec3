#pragma once

#include "outcome.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::metrics {

// All samples of one model on one task, collapsed into what the metrics score ("best of k").
struct TaskResult {
    std::string model;
    std::string taskId;
    int level = 1;

    int samples = 0;        // outcomes whose verdict is not NotAttempted
    int correctSamples = 0; // samples that may score (Correct and not unaccepted-suspicious)
    bool attempted = false; // samples > 0
    bool built = false;     // some sample got past the build (not BuildError/Rejected/NotAttempted)
    bool correct = false;   // correctSamples > 0

    // Best of k over the scoring samples, per baseline: the largest usable speedup.
    std::optional<double> speedupEager;
    std::optional<double> speedupCompile;
    // The interval of the sample whose speedup is the best above (nullopt when it has none).
    std::optional<SpeedupBounds> boundsEager;
    std::optional<SpeedupBounds> boundsCompile;
    // Best of k of clearingSpeedup over the scoring samples: what fast_p compares with p.
    std::optional<double> clearEager;
    std::optional<double> clearCompile;
    // Sample index of the scoring sample with the largest eager speedup (untimed samples rank
    // after timed ones, ties go to the lower index); -1 when no sample scores.
    int bestSampleIndex = -1;

    int suspicious = 0;         // samples flagged suspicious and not accepted
    int acceptedSuspicious = 0; // samples flagged suspicious and accepted
    int rejected = 0;           // samples with verdict Rejected
    int noisy = 0;              // scoring samples whose timing missed its precision target

    long long inputTokens = 0;
    long long outputTokens = 0;
    double costUsd = 0;
    long long turns = 0;
    double wallSeconds = 0;

    std::optional<double> speedup(Baseline baseline) const {
        return baseline == Baseline::Eager ? speedupEager : speedupCompile;
    }
    std::optional<double> clearing(Baseline baseline) const {
        return baseline == Baseline::Eager ? clearEager : clearCompile;
    }
    std::optional<SpeedupBounds> bounds(Baseline baseline) const {
        return baseline == Baseline::Eager ? boundsEager : boundsCompile;
    }
};

// Groups outcomes by (model, level, taskId) and collapses every group. The result is sorted by
// model, then level, then task id (byte-wise), so it is independent of the input order.
std::vector<TaskResult> resolveTasks(const std::vector<AttemptOutcome>& outcomes);

// The per-task speedup used by fallback metrics and paired comparisons: the best usable speedup
// when the task is correct and timed against that baseline, else 1.0.
double speedupWithFallback(const TaskResult& task, Baseline baseline);

// The task count each level's rates divide by: tasksPerLevel[level] where that is > 0, else the
// number of distinct task ids seen at that level across all models. Levels of either source
// whose count ends up 0 are left out. The map is ordered by level.
std::map<int, int> levelDenominators(const std::vector<TaskResult>& tasks,
                                     const std::map<int, int>& tasksPerLevel);

// The distinct model names of tasks, sorted byte-wise.
std::vector<std::string> modelsOf(const std::vector<TaskResult>& tasks);

} // namespace kb::metrics
