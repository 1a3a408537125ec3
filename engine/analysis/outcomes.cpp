#include "outcomes.h"

#include "db/runrepository.h"

#include <set>

namespace kb::engine {

metrics::Verdict toMetricsVerdict(const std::string& v)
{
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

metrics::AttemptOutcome toOutcome(const db::AttemptRow& a)
{
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
    o.inputTokens = a.inputTokens;
    o.outputTokens = a.outputTokens;
    o.turns = a.turns;
    return o;
}

OutcomeSet loadOutcomes(db::Connection& conn, db::Id runId)
{
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

metrics::Leaderboard leaderboardFor(db::Connection& conn, db::Id runId)
{
    const auto set = loadOutcomes(conn, runId);
    metrics::LeaderboardOptions options;
    options.tasksPerLevel = set.tasksPerLevel;
    return metrics::computeLeaderboard(set.outcomes, options);
}

} // namespace kb::engine
