#include "paired.h"

#include "taskresult.h"

#include <cmath>
#include <map>
#include <utility>

namespace kb::metrics {

namespace {

using TaskKey = std::pair<int, std::string>;

std::map<TaskKey, TaskResult> attemptedTasks(const std::vector<AttemptOutcome>& outcomes) {
    std::map<TaskKey, TaskResult> result;
    // Collapsing per task regardless of the model field: the caller passes one model's outcomes.
    std::vector<AttemptOutcome> unified = outcomes;
    for (AttemptOutcome& outcome : unified) {
        outcome.model.clear();
    }
    for (TaskResult& task : resolveTasks(unified)) {
        if (task.attempted) {
            result.emplace(TaskKey{task.level, task.taskId}, std::move(task));
        }
    }
    return result;
}

// The interval of the speedup a paired task uses: the best sample's, when the task is correct
// and that speedup was measured with one. A failed or untimed task's 1.0 has none.
std::optional<SpeedupBounds> taskBounds(const TaskResult& task, Baseline baseline) {
    if (!task.correct || !task.speedup(baseline)) {
        return std::nullopt;
    }
    return task.bounds(baseline);
}

std::string modelName(const std::vector<AttemptOutcome>& outcomes) {
    return outcomes.empty() ? std::string() : outcomes.front().model;
}

} // namespace

std::string verdictText(PairedVerdict verdict, int minSharedTasks) {
    switch (verdict) {
    case PairedVerdict::ABetter:
        return "A better";
    case PairedVerdict::BBetter:
        return "B better";
    case PairedVerdict::Tied:
        return "tied (CI includes 1)";
    case PairedVerdict::NotSignificant:
        return "tied (sign test not significant)";
    case PairedVerdict::NotEnoughEvidence:
        return "not enough evidence (fewer than " + std::to_string(minSharedTasks) +
               " shared tasks)";
    case PairedVerdict::NoSharedTasks:
        break;
    }
    return "no shared tasks";
}

PairedComparison comparePaired(const std::vector<AttemptOutcome>& outcomesA,
                               const std::vector<AttemptOutcome>& outcomesB,
                               const PairedOptions& options) {
    PairedComparison result;
    result.modelA = modelName(outcomesA);
    result.modelB = modelName(outcomesB);
    const auto tasksA = attemptedTasks(outcomesA);
    const auto tasksB = attemptedTasks(outcomesB);

    const double upper = 1.0 + options.tieBand;
    const double lower = 1.0 / upper;
    std::vector<double> ratios;
    for (const auto& [key, taskA] : tasksA) {
        const auto b = tasksB.find(key);
        if (b == tasksB.end()) {
            ++result.onlyA;
            continue;
        }
        PairedTask task;
        task.level = key.first;
        task.taskId = key.second;
        task.speedupA = speedupWithFallback(taskA, options.baseline);
        task.speedupB = speedupWithFallback(b->second, options.baseline);
        task.correctA = taskA.correct;
        task.correctB = b->second.correct;
        task.ratio = task.speedupA / task.speedupB;
        task.boundsA = taskBounds(taskA, options.baseline);
        task.boundsB = taskBounds(b->second, options.baseline);
        const SpeedupBounds a = task.boundsA.value_or(SpeedupBounds{task.speedupA, task.speedupA});
        const SpeedupBounds bb = task.boundsB.value_or(SpeedupBounds{task.speedupB, task.speedupB});
        const bool overlap = (task.boundsA || task.boundsB) && a.overlaps(bb);
        if (overlap && (task.ratio > upper || task.ratio < lower)) {
            task.tiedByNoise = true;
            task.comparison = TaskComparison::Tie;
            ++result.ties;
        } else if (task.ratio > upper) {
            task.comparison = TaskComparison::Win;
            ++result.wins;
        } else if (task.ratio < lower) {
            task.comparison = TaskComparison::Loss;
            ++result.losses;
        } else {
            task.comparison = TaskComparison::Tie;
            ++result.ties;
        }
        ratios.push_back(task.ratio);
        result.tasks.push_back(std::move(task));
    }
    for (const auto& [key, taskB] : tasksB) {
        result.onlyB += tasksA.contains(key) ? 0 : 1;
    }

    result.signTestP = signTestPValue(result.wins, result.losses);
    result.geomeanRatio = geometricMean(ratios);
    result.ratioCi = bootstrapGeomeanInterval(ratios, options.bootstrapResamples,
                                              options.confidence, options.seed);
    result.minSharedTasks = options.minSharedTasks;
    const double alpha = 1.0 - options.confidence;
    if (!result.ratioCi) {
        result.verdict = PairedVerdict::NoSharedTasks;
    } else if (result.sharedTasks() < options.minSharedTasks) {
        result.verdict = PairedVerdict::NotEnoughEvidence;
    } else if (result.ratioCi->contains(1.0)) {
        result.verdict = PairedVerdict::Tied;
    } else if (result.signTestP >= alpha) {
        result.verdict = PairedVerdict::NotSignificant;
    } else if (result.ratioCi->low > 1.0 && result.wins > result.losses) {
        result.verdict = PairedVerdict::ABetter;
    } else if (result.ratioCi->high < 1.0 && result.losses > result.wins) {
        result.verdict = PairedVerdict::BBetter;
    } else {
        // The interval and the sign test point in opposite directions.
        result.verdict = PairedVerdict::NotSignificant;
    }
    return result;
}

} // namespace kb::metrics
