#pragma once
// What a run monitor polls of one run: attempts per model and state, how many finished
// recently, and the newest finished attempts. Polling works the same for an engine in this
// process and for a headless one (`kbstudio-cli run`, `serve`, Slurm).

#include "records.h"
#include "sqlite.h"

#include <optional>
#include <string>
#include <vector>

namespace kb::db {

struct ModelStateCount {
    std::string model;
    std::string status; // as stored; see attemptStatusFromString
    std::string verdict;
    int count = 0;
};

struct FinishRate {
    int finishedInWindow = 0;                // attempts (of any final state) finished in the window
    std::optional<double> secondsSinceStart; // since the run started; nullopt before it did
};

struct FinishedAttemptRow {
    Id attemptId = 0;
    std::string finishedAt;
    std::string model;
    std::string taskKey;
    std::string status;
    std::string verdict;
    std::optional<double> speedupEager;
    std::string message;
};

class MonitorRepository {
public:
    explicit MonitorRepository(Connection& conn)
        : m_conn(conn) {}

    // Attempts of the run per model name, state and verdict.
    std::vector<ModelStateCount> stateCounts(Id runId);
    // Attempts of the run finished in the last windowSeconds, and the run's age.
    FinishRate finishRate(Id runId, double windowSeconds);
    // The run's `limit` newest finished attempts, newest last.
    std::vector<FinishedAttemptRow> recentlyFinished(Id runId, int limit);

private:
    Connection& m_conn;
};

} // namespace kb::db
