#include "leaderboard.h"

#include "taskresult.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace kb::metrics {

namespace {

struct LevelContext {
    int level = 1;
    int denominator = 0;
    bool compileAvailable = false;
};

std::vector<double> correctSpeedups(const std::vector<const TaskResult*>& tasks,
                                    Baseline baseline) {
    std::vector<double> speedups;
    for (const TaskResult* task : tasks) {
        if (task->correct) {
            if (const auto s = task->speedup(baseline)) {
                speedups.push_back(*s);
            }
        }
    }
    return speedups;
}

// exp(sum log s / tasks): the geomean over all tasks where each task without a speedup is 1.0.
std::optional<double> fallbackGeomean(const std::vector<double>& speedups, int tasks) {
    if (tasks <= 0) {
        return std::nullopt;
    }
    double logSum = 0;
    for (double s : speedups) {
        logSum += std::log(s);
    }
    return std::exp(logSum / static_cast<double>(tasks));
}

double fractionAbove(const std::vector<double>& speedups, double p, int tasks) {
    if (tasks <= 0) {
        return 0.0;
    }
    const auto above =
        std::count_if(speedups.begin(), speedups.end(), [p](double s) { return s > p; });
    return static_cast<double>(above) / static_cast<double>(tasks);
}

LeaderboardCell levelCell(const std::string& model, const LevelContext& context,
                          const std::vector<const TaskResult*>& tasks,
                          const LeaderboardOptions& options) {
    LeaderboardCell cell;
    cell.model = model;
    cell.level = context.level;
    cell.tasks = std::max(context.denominator, static_cast<int>(tasks.size()));
    for (const TaskResult* task : tasks) {
        cell.attempted += task->attempted ? 1 : 0;
        cell.built += task->built ? 1 : 0;
        cell.correct += task->correct ? 1 : 0;
        cell.timed += (task->correct && task->speedupEager) ? 1 : 0;
        cell.suspicious += task->suspicious;
        cell.acceptedSuspicious += task->acceptedSuspicious;
        cell.rejected += task->rejected;
        cell.inputTokens += task->inputTokens;
        cell.outputTokens += task->outputTokens;
        cell.costUsd += task->costUsd;
        cell.turns += task->turns;
        cell.wallSeconds += task->wallSeconds;
    }
    const double n = cell.tasks;
    cell.passRate = cell.tasks > 0 ? cell.correct / n : 0.0;
    cell.passRateCi = wilsonInterval(cell.correct, n, options.confidence);

    const auto eager = correctSpeedups(tasks, Baseline::Eager);
    const auto compile = correctSpeedups(tasks, Baseline::Compile);
    for (double p : options.pValues) {
        FastPValue value;
        value.p = p;
        value.vsEager = fractionAbove(eager, p, cell.tasks);
        if (context.compileAvailable) {
            value.vsCompile = fractionAbove(compile, p, cell.tasks);
        }
        cell.fastP.push_back(value);
    }
    cell.geomeanEager = geometricMean(eager);
    cell.geomeanFallbackEager = fallbackGeomean(eager, cell.tasks);
    cell.medianEager = median(eager);
    if (context.compileAvailable) {
        cell.geomeanCompile = geometricMean(compile);
        cell.geomeanFallbackCompile = fallbackGeomean(compile, cell.tasks);
        cell.medianCompile = median(compile);
    }
    if (options.bootstrapGeomean) {
        cell.geomeanEagerCi = bootstrapGeomeanInterval(eager, options.bootstrapResamples,
                                                       options.confidence, options.bootstrapSeed);
    }
    return cell;
}

// Weighted mean of per-level values (log-space when `logSpace`), over the levels where the
// value exists; nullopt when no weighted level has one.
template <typename Get>
std::optional<double>
weightedMean(const std::vector<std::pair<const LeaderboardCell*, double>>& levels, Get get,
             bool logSpace) {
    double sum = 0;
    double weightSum = 0;
    for (const auto& [cell, weight] : levels) {
        const std::optional<double> value = get(*cell);
        if (!value) {
            continue;
        }
        sum += weight * (logSpace ? std::log(*value) : *value);
        weightSum += weight;
    }
    if (weightSum <= 0) {
        return std::nullopt;
    }
    const double mean = sum / weightSum;
    return logSpace ? std::exp(mean) : mean;
}

LeaderboardCell overallCell(const std::string& model,
                            const std::vector<std::pair<const LeaderboardCell*, double>>& levels,
                            const std::vector<double>& pooledEager,
                            const std::vector<double>& pooledCompile, bool anyCompile,
                            const LeaderboardOptions& options) {
    LeaderboardCell cell;
    cell.model = model;
    cell.level = kOverallLevel;
    double weightSum = 0;
    for (const auto& [level, weight] : levels) {
        cell.tasks += level->tasks;
        cell.attempted += level->attempted;
        cell.built += level->built;
        cell.correct += level->correct;
        cell.timed += level->timed;
        cell.suspicious += level->suspicious;
        cell.acceptedSuspicious += level->acceptedSuspicious;
        cell.rejected += level->rejected;
        cell.inputTokens += level->inputTokens;
        cell.outputTokens += level->outputTokens;
        cell.costUsd += level->costUsd;
        cell.turns += level->turns;
        cell.wallSeconds += level->wallSeconds;
        weightSum += weight;
    }
    if (weightSum <= 0) {
        return cell;
    }

    cell.passRate = *weightedMean(
        levels, [](const LeaderboardCell& c) { return std::optional<double>(c.passRate); }, false);
    // Effective sample size of a weighted mean of level proportions (Kish): with a_l = w_l / W,
    // n_eff = 1 / sum(a_l^2 / n_l). It equals the pooled task count when weights are task counts.
    double inverseN = 0;
    for (const auto& [level, weight] : levels) {
        const double a = weight / weightSum;
        inverseN += a * a / static_cast<double>(level->tasks);
    }
    const double effectiveN = 1.0 / inverseN;
    cell.passRateCi = wilsonInterval(cell.passRate * effectiveN, effectiveN, options.confidence);

    for (std::size_t i = 0; i < options.pValues.size(); ++i) {
        FastPValue value;
        value.p = options.pValues[i];
        value.vsEager = *weightedMean(
            levels,
            [i](const LeaderboardCell& c) { return std::optional<double>(c.fastP[i].vsEager); },
            false);
        value.vsCompile = weightedMean(
            levels, [i](const LeaderboardCell& c) { return c.fastP[i].vsCompile; }, false);
        cell.fastP.push_back(value);
    }
    cell.geomeanEager = weightedMean(
        levels, [](const LeaderboardCell& c) { return c.geomeanEager; }, true);
    cell.geomeanCompile = weightedMean(
        levels, [](const LeaderboardCell& c) { return c.geomeanCompile; }, true);
    cell.geomeanFallbackEager = weightedMean(
        levels, [](const LeaderboardCell& c) { return c.geomeanFallbackEager; }, true);
    cell.geomeanFallbackCompile = weightedMean(
        levels, [](const LeaderboardCell& c) { return c.geomeanFallbackCompile; }, true);
    cell.medianEager = median(pooledEager);
    if (anyCompile) {
        cell.medianCompile = median(pooledCompile);
    }
    return cell;
}

} // namespace

const FastPValue* LeaderboardCell::fastPAt(double p) const {
    for (const FastPValue& value : fastP) {
        if (std::abs(value.p - p) <= 1e-9) {
            return &value;
        }
    }
    return nullptr;
}

const LeaderboardCell* Leaderboard::find(std::string_view model, int level) const {
    const auto& rows = level == kOverallLevel ? overall : cells;
    for (const LeaderboardCell& cell : rows) {
        if (cell.model == model && cell.level == level) {
            return &cell;
        }
    }
    return nullptr;
}

Leaderboard computeLeaderboard(const std::vector<AttemptOutcome>& outcomes,
                               const LeaderboardOptions& options) {
    std::set<int> compileLevels;
    for (const AttemptOutcome& outcome : outcomes) {
        if (usableSpeedup(outcome, Baseline::Compile)) {
            compileLevels.insert(outcome.level);
        }
    }
    return computeLeaderboard(resolveTasks(outcomes), compileLevels, options);
}

Leaderboard computeLeaderboard(std::vector<TaskResult> tasks, const std::set<int>& compileLevels,
                               const LeaderboardOptions& options) {
    // The order of resolveTasks, which the sums of logarithms below depend on to the last bit.
    std::sort(tasks.begin(), tasks.end(), [](const TaskResult& a, const TaskResult& b) {
        return std::tie(a.model, a.level, a.taskId) < std::tie(b.model, b.level, b.taskId);
    });

    Leaderboard board;
    board.models = modelsOf(tasks);
    board.tasksPerLevel = levelDenominators(tasks, options.tasksPerLevel);
    board.pValues = options.pValues;
    for (const auto& [level, count] : board.tasksPerLevel) {
        board.levels.push_back(level);
        const auto weight = options.levelWeights.find(level);
        board.levelWeights[level] =
            std::max(0.0, weight != options.levelWeights.end() ? weight->second
                                                               : static_cast<double>(count));
        board.compileAvailable[level] = false;
    }
    for (int level : compileLevels) {
        board.compileAvailable[level] = true;
    }

    for (int level : board.levels) {
        const LevelContext context{level, board.tasksPerLevel.at(level),
                                   board.compileAvailable.at(level)};
        for (const std::string& model : board.models) {
            std::vector<const TaskResult*> own;
            for (const TaskResult& task : tasks) {
                if (task.model == model && task.level == level) {
                    own.push_back(&task);
                }
            }
            board.cells.push_back(levelCell(model, context, own, options));
        }
    }

    for (const std::string& model : board.models) {
        std::vector<std::pair<const LeaderboardCell*, double>> weighted;
        for (const LeaderboardCell& cell : board.cells) {
            const double weight = board.levelWeights.at(cell.level);
            if (cell.model == model && weight > 0 && cell.tasks > 0) {
                weighted.emplace_back(&cell, weight);
            }
        }
        std::vector<double> pooledEager;
        std::vector<double> pooledCompile;
        bool anyCompile = false;
        for (const TaskResult& task : tasks) {
            if (task.model != model || !task.correct || board.levelWeights.at(task.level) <= 0) {
                continue;
            }
            if (task.speedupEager) {
                pooledEager.push_back(*task.speedupEager);
            }
            if (task.speedupCompile) {
                pooledCompile.push_back(*task.speedupCompile);
            }
        }
        for (const auto& [cell, weight] : weighted) {
            anyCompile = anyCompile || board.compileAvailable.at(cell->level);
        }
        board.overall.push_back(
            overallCell(model, weighted, pooledEager, pooledCompile, anyCompile, options));
    }
    return board;
}

} // namespace kb::metrics
