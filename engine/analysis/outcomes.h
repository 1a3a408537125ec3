#pragma once
// Turns stored attempts into the flat outcome records every metric is computed from.

#include "db/records.h"
#include "metrics/leaderboard.h"

#include <map>
#include <vector>

namespace kb::db {
class Connection;
}

namespace kb::engine {

// The metrics verdict of a stored attempt verdict ("correct", "build_error", ...).
metrics::Verdict toMetricsVerdict(const std::string& storedVerdict);
metrics::AttemptOutcome toOutcome(const db::AttemptRow& attempt);

struct OutcomeSet {
    std::vector<metrics::AttemptOutcome> outcomes;
    std::map<int, int> tasksPerLevel; // tasks in the run(s), per level
};

// All attempts of a run (every run when runId is 0).
OutcomeSet loadOutcomes(db::Connection& conn, db::Id runId);

// The leaderboard of a run (every run when runId is 0), with the run's task counts and the
// bootstrap intervals of its geomeans. Read from
// the per-task summaries the database keeps (task_summaries), not from every attempt; a database
// without them (an older schema opened read-only) is read row by row.
metrics::Leaderboard leaderboardFor(db::Connection& conn, db::Id runId);

// The same leaderboard computed row by row from every stored attempt (loadOutcomes): the
// reference leaderboardFor must equal, and far slower on large databases.
metrics::Leaderboard leaderboardFromRows(db::Connection& conn, db::Id runId);

} // namespace kb::engine
