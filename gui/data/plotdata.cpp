#include "plotdata.h"

#include "analysis/outcomes.h"
#include "metrics/fastp.h"
#include "metrics/taskresult.h"

#include <algorithm>
#include <map>
#include <set>

namespace kb::gui {

namespace {

std::vector<metrics::AttemptOutcome> outcomesOf(const Snapshot& snapshot, db::Id runId, int level)
{
    std::vector<metrics::AttemptOutcome> out;
    for (const auto* a : snapshot.attemptsOf(runId)) {
        if (level == 0 || a->level == level)
            out.push_back(engine::toOutcome(*a));
    }
    return out;
}

} // namespace

std::vector<SpeedupGroup> speedupGroups(const Snapshot& snapshot, db::Id runId,
                                        metrics::Baseline baseline)
{
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
                                    metrics::Baseline baseline, int level, int steps)
{
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
        curve.points = metrics::fastPCurve(ofModel, baseline, 0.0, 3.0, steps,
                                           static_cast<int>(tasks.size()));
        out.push_back(std::move(curve));
    }
    return out;
}

} // namespace kb::gui
