#include "leaderboard.h"

#include "passatk.h"
#include "taskresult.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace kb::metrics {

namespace {

struct LevelContext {
    int level = 1;
    int denominator = 0;
    bool compileAvailable = false;
    std::vector<int> passAtKs;
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

// What fast_p compares with p: per correct, timed task its best clearing speedup (the lower
// bound of the interval, or the speedup when it was measured without one).
std::vector<double> clearingSpeedups(const std::vector<const TaskResult*>& tasks,
                                     Baseline baseline) {
    std::vector<double> values;
    for (const TaskResult* task : tasks) {
        if (task->correct && task->speedup(baseline)) {
            values.push_back(task->clearing(baseline).value_or(*task->speedup(baseline)));
        }
    }
    return values;
}

// pass@k of one cell; n/a when the model has fewer than k samples on every task it attempted
// (modelMostSamples), so that pass@3 of a model run with one sample is not read as 0 %.
PassAtKValue passAtKOf(const std::vector<const TaskResult*>& tasks, int k, int denominator,
                       int modelMostSamples) {
    PassAtKValue value;
    value.k = k;
    if (modelMostSamples < k) {
        return value;
    }
    double sum = 0;
    for (const TaskResult* task : tasks) {
        if (task->samples == 0) {
            continue; // scores 0, stays in the denominator
        }
        if (task->samples < k) {
            ++value.tasksWithTooFewSamples;
            continue;
        }
        sum += passAtK(task->samples, task->correctSamples, k);
    }
    const int scored = denominator - value.tasksWithTooFewSamples;
    if (scored > 0) {
        value.value = sum / static_cast<double>(scored);
    }
    return value;
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
                          const std::vector<const TaskResult*>& tasks, int modelMostSamples,
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
        cell.noisy += task->noisy;
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
    const auto clearEager = clearingSpeedups(tasks, Baseline::Eager);
    const auto clearCompile = clearingSpeedups(tasks, Baseline::Compile);
    for (double p : options.pValues) {
        FastPValue value;
        value.p = p;
        value.vsEager = fractionAbove(clearEager, p, cell.tasks);
        if (context.compileAvailable) {
            value.vsCompile = fractionAbove(clearCompile, p, cell.tasks);
        }
        cell.fastP.push_back(value);
    }
    for (int k : context.passAtKs) {
        cell.passAtK.push_back(passAtKOf(tasks, k, cell.tasks, modelMostSamples));
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
        if (context.compileAvailable) {
            cell.geomeanCompileCi = bootstrapGeomeanInterval(
                compile, options.bootstrapResamples, options.confidence, options.bootstrapSeed);
        }
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

// The correct, timed tasks' speedups of one model, per weighted level (in level order), with
// the level's weight: the strata of the overall geomean's bootstrap.
struct OverallInputs {
    std::vector<double> pooledEager;
    std::vector<double> pooledCompile;
    std::vector<WeightedSample> strataEager;
    std::vector<WeightedSample> strataCompile;
    bool anyCompile = false;
};

LeaderboardCell overallCell(const std::string& model,
                            const std::vector<std::pair<const LeaderboardCell*, double>>& levels,
                            const OverallInputs& inputs, const std::vector<int>& passAtKs,
                            const LeaderboardOptions& options) {
    const auto& pooledEager = inputs.pooledEager;
    const auto& pooledCompile = inputs.pooledCompile;
    const bool anyCompile = inputs.anyCompile;
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
        cell.noisy += level->noisy;
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
    for (std::size_t i = 0; i < passAtKs.size(); ++i) {
        PassAtKValue value;
        value.k = passAtKs[i];
        value.value = weightedMean(
            levels, [i](const LeaderboardCell& c) { return c.passAtK[i].value; }, false);
        for (const auto& [level, weight] : levels) {
            value.tasksWithTooFewSamples += level->passAtK[i].tasksWithTooFewSamples;
        }
        cell.passAtK.push_back(value);
    }
    cell.medianEager = median(pooledEager);
    if (anyCompile) {
        cell.medianCompile = median(pooledCompile);
    }
    if (options.bootstrapGeomean) {
        cell.geomeanEagerCi =
            bootstrapWeightedGeomeanInterval(inputs.strataEager, options.bootstrapResamples,
                                             options.confidence, options.bootstrapSeed);
        if (anyCompile) {
            cell.geomeanCompileCi =
                bootstrapWeightedGeomeanInterval(inputs.strataCompile, options.bootstrapResamples,
                                                 options.confidence, options.bootstrapSeed);
        }
    }
    return cell;
}

// pass@k values: the configured ones, else 1 and the largest sample count of any task (> 1).
std::vector<int> passAtKsFor(const std::vector<TaskResult>& tasks,
                             const LeaderboardOptions& options) {
    std::vector<int> ks;
    for (int k : options.passAtKs) {
        if (k >= 1) {
            ks.push_back(k);
        }
    }
    if (options.passAtKs.empty()) {
        int most = 0;
        for (const TaskResult& task : tasks) {
            most = std::max(most, task.samples);
        }
        ks.push_back(1);
        if (most > 1) {
            ks.push_back(most);
        }
    }
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    return ks;
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

const PassAtKValue* LeaderboardCell::passAtKAt(int k) const {
    for (const PassAtKValue& value : passAtK) {
        if (value.k == k) {
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
    board.passAtKs = passAtKsFor(tasks, options);
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

    std::map<std::string, int> mostSamples;
    for (const TaskResult& task : tasks) {
        int& most = mostSamples[task.model];
        most = std::max(most, task.samples);
    }
    for (int level : board.levels) {
        const LevelContext context{level, board.tasksPerLevel.at(level),
                                   board.compileAvailable.at(level), board.passAtKs};
        for (const std::string& model : board.models) {
            std::vector<const TaskResult*> own;
            for (const TaskResult& task : tasks) {
                if (task.model == model && task.level == level) {
                    own.push_back(&task);
                }
            }
            board.cells.push_back(levelCell(model, context, own, mostSamples[model], options));
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
        OverallInputs inputs;
        for (const auto& [cell, weight] : weighted) {
            WeightedSample eager{{}, weight};
            WeightedSample compile{{}, weight};
            for (const TaskResult& task : tasks) {
                if (task.model != model || task.level != cell->level || !task.correct) {
                    continue;
                }
                if (task.speedupEager) {
                    eager.values.push_back(*task.speedupEager);
                }
                if (task.speedupCompile) {
                    compile.values.push_back(*task.speedupCompile);
                }
            }
            inputs.pooledEager.insert(inputs.pooledEager.end(), eager.values.begin(),
                                      eager.values.end());
            inputs.pooledCompile.insert(inputs.pooledCompile.end(), compile.values.begin(),
                                        compile.values.end());
            inputs.strataEager.push_back(std::move(eager));
            if (board.compileAvailable.at(cell->level)) {
                inputs.strataCompile.push_back(std::move(compile));
            }
            inputs.anyCompile = inputs.anyCompile || board.compileAvailable.at(cell->level);
        }
        board.overall.push_back(overallCell(model, weighted, inputs, board.passAtKs, options));
    }
    return board;
}

} // namespace kb::metrics
