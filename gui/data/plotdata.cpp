#include "plotdata.h"

#include "analysis/outcomes.h"
#include "metrics/fastp.h"
#include "metrics/taskresult.h"

#include <algorithm>
#include <map>
#include <set>

namespace kb::gui {

namespace {

std::vector<metrics::AttemptOutcome> outcomesOf(const Snapshot& snapshot, db::Id runId, int level) {
    std::vector<metrics::AttemptOutcome> out;
    for (const auto* a : snapshot.attemptsOf(runId)) {
        if (level == 0 || a->level == level)
            out.push_back(engine::toOutcome(*a));
    }
    return out;
}

} // namespace

std::vector<SpeedupGroup> speedupGroups(const Snapshot& snapshot, db::Id runId,
                                        metrics::Baseline baseline) {
    std::map<std::pair<int, std::string>, SpeedupGroup> groups;
    for (const auto& task : metrics::resolveTasks(outcomesOf(snapshot, runId, 0))) {
        auto& group = groups[{task.level, task.model}];
        group.model = QString::fromStdString(task.model);
        group.level = task.level;
        if (!task.correct)
            continue;
        if (const auto s = task.speedup(baseline); s && *s > 0)
            group.speedups.push_back(*s);
    }
    std::vector<SpeedupGroup> out;
    for (auto& [key, group] : groups) {
        std::sort(group.speedups.begin(), group.speedups.end());
        out.push_back(std::move(group));
    }
    return out;
}

std::vector<FastPCurve> fastPCurves(const Snapshot& snapshot, db::Id runId,
                                    metrics::Baseline baseline, int level, int steps) {
    const auto outcomes = outcomesOf(snapshot, runId, level);
    std::set<std::pair<int, std::string>> tasks;
    std::map<std::string, std::vector<metrics::AttemptOutcome>> byModel;
    for (const auto& o : outcomes) {
        tasks.insert({o.level, o.taskId});
        byModel[o.model].push_back(o);
    }
    std::vector<FastPCurve> out;
    for (const auto& [model, ofModel] : byModel) {
        FastPCurve curve;
        curve.model = QString::fromStdString(model);
        curve.points =
            metrics::fastPCurve(ofModel, baseline, 0.0, 3.0, steps, static_cast<int>(tasks.size()));
        out.push_back(std::move(curve));
    }
    return out;
}

CostScoreData costScorePoints(const Snapshot& snapshot, db::Id runId, ScoreMeasure measure) {
    CostScoreData out;
    const auto* board = snapshot.leaderboard(runId);
    if (!board)
        return out;
    std::map<std::string, double> usd;
    std::map<std::string, double> tokens;
    for (const auto* a : snapshot.attemptsOf(runId)) {
        tokens[a->modelName] += static_cast<double>(a->inputTokens + a->outputTokens);
        if (const auto cost = snapshot.costUsd(a->id))
            usd[a->modelName] += *cost;
    }
    out.inUsd = !board->overall.empty();
    for (const auto& cell : board->overall)
        out.inUsd = out.inUsd && usd.count(cell.model) > 0;
    for (const auto& cell : board->overall) {
        CostScorePoint point;
        point.model = QString::fromStdString(cell.model);
        point.spend = out.inUsd ? usd[cell.model] : tokens[cell.model];
        if (measure == ScoreMeasure::PassRate) {
            point.score = cell.passRate;
        } else if (const auto* fast1 = cell.fastPAt(1.0)) {
            point.score = fast1->vsEager;
        }
        out.points.push_back(std::move(point));
    }
    return out;
}

TurnsSpeedupData turnsSpeedupPoints(const Snapshot& snapshot, db::Id runId) {
    TurnsSpeedupData out;
    for (const auto* a : snapshot.attemptsOf(runId)) {
        if (a->mode == "one-shot")
            continue;
        ++out.attempts;
        const auto outcome = engine::toOutcome(*a);
        if (!metrics::isScoringCorrect(outcome))
            continue;
        const auto speedup = metrics::usableSpeedup(outcome, metrics::Baseline::Eager);
        if (!speedup)
            continue;
        TurnsSpeedupPoint point;
        point.model = QString::fromStdString(a->modelName);
        point.taskKey = QString::fromStdString(a->taskKey);
        point.attemptId = a->id;
        point.turns = a->turns;
        point.speedup = *speedup;
        out.points.push_back(std::move(point));
    }
    return out;
}

} // namespace kb::gui
