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

std::string modelName(const std::vector<AttemptOutcome>& outcomes) {
    return outcomes.empty() ? std::string() : outcomes.front().model;
}

} // namespace

std::string verdictText(PairedVerdict verdict) {
    switch (verdict) {
    case PairedVerdict::ABetter:
        return "A better";
    case PairedVerdict::BBetter:
        return "B better";
    case PairedVerdict::Tied:
        return "tied (CI includes 1)";
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
        if (task.ratio > upper) {
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
    if (!result.ratioCi) {
        result.verdict = PairedVerdict::NoSharedTasks;
    } else if (result.ratioCi->low > 1.0) {
        result.verdict = PairedVerdict::ABetter;
    } else if (result.ratioCi->high < 1.0) {
        result.verdict = PairedVerdict::BBetter;
    } else {
        result.verdict = PairedVerdict::Tied;
    }
    return result;
}

} // namespace kb::metrics
