#include "taskresult.h"

#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace kb::metrics {

namespace {

using TaskKey = std::tuple<std::string, int, std::string>;

bool passedBuild(Verdict verdict) {
    return verdict != Verdict::BuildError && verdict != Verdict::Rejected &&
           verdict != Verdict::NotAttempted;
}

void maxInto(std::optional<double>& best, std::optional<double> candidate) {
    if (candidate && (!best || *candidate > *best)) {
        best = candidate;
    }
}

void addSample(TaskResult& task, const AttemptOutcome& outcome,
               std::optional<double>& bestRankEager) {
    task.inputTokens += outcome.inputTokens;
    task.outputTokens += outcome.outputTokens;
    task.costUsd += outcome.costUsd;
    task.turns += outcome.turns;
    task.wallSeconds += outcome.wallSeconds;
    if (outcome.verdict == Verdict::Rejected) {
        ++task.rejected;
    }
    if (outcome.suspicious) {
        if (outcome.accepted) {
            ++task.acceptedSuspicious;
        } else {
            ++task.suspicious;
        }
    }
    if (outcome.verdict == Verdict::NotAttempted) {
        return;
    }
    ++task.samples;
    task.built = task.built || passedBuild(outcome.verdict);
    if (!isScoringCorrect(outcome)) {
        return;
    }
    ++task.correctSamples;
    task.noisy += outcome.noisy ? 1 : 0;
    const auto eager = usableSpeedup(outcome, Baseline::Eager);
    const auto compile = usableSpeedup(outcome, Baseline::Compile);
    if (eager && (!task.speedupEager || *eager > *task.speedupEager)) {
        task.boundsEager = speedupBounds(outcome, Baseline::Eager);
    }
    if (compile && (!task.speedupCompile || *compile > *task.speedupCompile)) {
        task.boundsCompile = speedupBounds(outcome, Baseline::Compile);
    }
    maxInto(task.speedupEager, eager);
    maxInto(task.speedupCompile, compile);
    maxInto(task.clearEager, clearingSpeedup(outcome, Baseline::Eager));
    maxInto(task.clearCompile, clearingSpeedup(outcome, Baseline::Compile));

    // Rank: timed beats untimed, larger speedup beats smaller, lower index breaks ties.
    const bool better = [&] {
        if (task.bestSampleIndex < 0) {
            return true;
        }
        if (eager.has_value() != bestRankEager.has_value()) {
            return eager.has_value();
        }
        if (eager && *eager != *bestRankEager) {
            return *eager > *bestRankEager;
        }
        return outcome.sampleIndex < task.bestSampleIndex;
    }();
    if (better) {
        task.bestSampleIndex = outcome.sampleIndex;
        bestRankEager = eager;
    }
}

} // namespace

std::vector<TaskResult> resolveTasks(const std::vector<AttemptOutcome>& outcomes) {
    std::map<TaskKey, std::pair<TaskResult, std::optional<double>>> groups;
    for (const AttemptOutcome& outcome : outcomes) {
        auto [it, inserted] =
            groups.try_emplace(TaskKey{outcome.model, outcome.level, outcome.taskId});
        auto& [task, bestRankEager] = it->second;
        if (inserted) {
            task.model = outcome.model;
            task.taskId = outcome.taskId;
            task.level = outcome.level;
        }
        addSample(task, outcome, bestRankEager);
    }
    std::vector<TaskResult> result;
    result.reserve(groups.size());
    for (auto& [key, group] : groups) {
        TaskResult& task = group.first;
        task.attempted = task.samples > 0;
        task.correct = task.correctSamples > 0;
        result.push_back(std::move(task));
    }
    return result;
}

double speedupWithFallback(const TaskResult& task, Baseline baseline) {
    if (!task.correct) {
        return 1.0;
    }
    return task.speedup(baseline).value_or(1.0);
}

std::map<int, int> levelDenominators(const std::vector<TaskResult>& tasks,
                                     const std::map<int, int>& tasksPerLevel) {
    std::map<int, std::set<std::string>> seen;
    for (const TaskResult& task : tasks) {
        seen[task.level].insert(task.taskId);
    }
    std::map<int, int> result;
    for (const auto& [level, count] : tasksPerLevel) {
        if (count > 0) {
            result[level] = count;
        }
    }
    for (const auto& [level, ids] : seen) {
        if (!result.contains(level) && !ids.empty()) {
            result[level] = static_cast<int>(ids.size());
        }
    }
    return result;
}

std::vector<std::string> modelsOf(const std::vector<TaskResult>& tasks) {
    std::set<std::string> models;
    for (const TaskResult& task : tasks) {
        models.insert(task.model);
    }
    return {models.begin(), models.end()};
}

} // namespace kb::metrics
