#include "outcomes.h"

#include "db/runrepository.h"

#include <set>
#include <tuple>

namespace kb::engine {

metrics::Verdict toMetricsVerdict(const std::string& v) {
    using metrics::Verdict;
    if (v == "correct")
        return Verdict::Correct;
    if (v == "incorrect")
        return Verdict::Incorrect;
    if (v == "build_error")
        return Verdict::BuildError;
    if (v == "runtime_error" || v == "invalid_candidate")
        return Verdict::RuntimeError;
    if (v == "timeout")
        return Verdict::Timeout;
    if (v == "rejected")
        return Verdict::Rejected;
    // pending, no_candidate, harness_error: nothing was evaluated.
    return Verdict::NotAttempted;
}

metrics::AttemptOutcome toOutcome(const db::AttemptRow& a) {
    metrics::AttemptOutcome o;
    o.model = a.modelName;
    o.taskId = a.taskKey;
    o.level = a.level;
    o.sampleIndex = a.sampleIndex;
    o.verdict = toMetricsVerdict(a.verdict);
    // A person's rejection of a suspicious attempt makes it a rejected attempt.
    if (a.review == "rejected")
        o.verdict = metrics::Verdict::Rejected;
    o.suspicious = a.suspicious;
    o.accepted = a.review == "accepted";
    o.speedupEager = a.speedupEager;
    o.speedupCompile = a.speedupCompile;
    o.eagerLow = a.uncertainty.eagerLow;
    o.eagerHigh = a.uncertainty.eagerHigh;
    o.compileLow = a.uncertainty.compileLow;
    o.compileHigh = a.uncertainty.compileHigh;
    o.noisy = a.uncertainty.noisy();
    o.costUsd = a.costUsd.value_or(0.0);
    o.inputTokens = a.inputTokens;
    o.outputTokens = a.outputTokens;
    o.turns = a.turns;
    return o;
}

OutcomeSet loadOutcomes(db::Connection& conn, db::Id runId) {
    OutcomeSet set;
    std::map<int, std::set<std::string>> tasks;
    for (const auto& a : db::RunRepository(conn).attempts(runId)) {
        set.outcomes.push_back(toOutcome(a));
        tasks[a.level].insert(a.taskKey);
    }
    for (const auto& [level, keys] : tasks)
        set.tasksPerLevel[level] = static_cast<int>(keys.size());
    return set;
}

metrics::Leaderboard leaderboardFromRows(db::Connection& conn, db::Id runId) {
    const auto set = loadOutcomes(conn, runId);
    metrics::LeaderboardOptions options;
    options.tasksPerLevel = set.tasksPerLevel;
    options.bootstrapGeomean = true;
    return metrics::computeLeaderboard(set.outcomes, options);
}

metrics::Leaderboard leaderboardFor(db::Connection& conn, db::Id runId) {
    // A database of an older schema opened read-only has no summaries (migration 4 adds them).
    {
        db::Statement q(
            conn,
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'task_summaries'");
        if (q.step() && q.int64(0) == 0)
            return leaderboardFromRows(conn, runId);
    }
    // Rows come per model id and task id; the metrics group by names (two providers may serve a
    // model of the same name, two suites a task of the same key and level), as resolveTasks does.
    using Key = std::tuple<std::string, int, std::string>;
    std::map<Key, metrics::TaskResult> tasks;
    std::map<int, std::set<std::string>> keysPerLevel;
    std::set<int> compileLevels;
    for (const auto& row : db::RunRepository(conn).taskSummaries(runId)) {
        auto [it, inserted] = tasks.try_emplace(Key{row.modelName, row.level, row.taskKey});
        metrics::TaskResult& task = it->second;
        if (inserted) {
            task.model = row.modelName;
            task.taskId = row.taskKey;
            task.level = row.level;
        }
        task.samples += static_cast<int>(row.samples);
        task.correctSamples += static_cast<int>(row.scoring);
        task.built = task.built || row.built;
        if (row.bestEager && (!task.speedupEager || *row.bestEager > *task.speedupEager))
            task.speedupEager = row.bestEager;
        if (row.bestCompile && (!task.speedupCompile || *row.bestCompile > *task.speedupCompile))
            task.speedupCompile = row.bestCompile;
        if (row.clearEager && (!task.clearEager || *row.clearEager > *task.clearEager))
            task.clearEager = row.clearEager;
        if (row.clearCompile && (!task.clearCompile || *row.clearCompile > *task.clearCompile))
            task.clearCompile = row.clearCompile;
        task.noisy += static_cast<int>(row.noisy);
        task.costUsd += row.costUsd;
        task.suspicious += static_cast<int>(row.suspicious);
        task.acceptedSuspicious += static_cast<int>(row.acceptedSuspicious);
        task.rejected += static_cast<int>(row.rejected);
        task.inputTokens += row.inputTokens;
        task.outputTokens += row.outputTokens;
        task.turns += row.turns;
        keysPerLevel[row.level].insert(row.taskKey);
        if (row.compileSeen)
            compileLevels.insert(row.level);
    }
    std::vector<metrics::TaskResult> resolved;
    resolved.reserve(tasks.size());
    for (auto& [key, task] : tasks) {
        task.attempted = task.samples > 0;
        task.correct = task.correctSamples > 0;
        resolved.push_back(std::move(task));
    }
    metrics::LeaderboardOptions options;
    options.bootstrapGeomean = true;
    for (const auto& [level, keys] : keysPerLevel)
        options.tasksPerLevel[level] = static_cast<int>(keys.size());
    return metrics::computeLeaderboard(std::move(resolved), compileLevels, options);
}

} // namespace kb::engine
