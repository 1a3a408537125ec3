#pragma once
// The scheduling side of runs and attempts: queue order, priorities, control flags set by other
// processes (pause, cancel a run, a model or a task), retries, and the figures `status` shows.

#include "records.h"
#include "sqlite.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::db {

struct RunThroughput {
    int finishedInWindow = 0; // attempts finished in the last windowSeconds
    double windowSeconds = 0;
    double attemptsPerMinute() const {
        return windowSeconds > 0 ? finishedInWindow * 60.0 / windowSeconds : 0.0;
    }
};

class QueueRepository {
public:
    explicit QueueRepository(Connection& conn)
        : m_conn(conn) {}

    // Queued attempts of a run in the order they should start: attempt priority (high first),
    // then level, task, model, sample.
    std::vector<Id> queuedAttempts(Id runId);
    void setRunPriority(Id runId, int priority);
    // Priority of the attempts of a run, optionally only those of one model and/or task.
    int setAttemptPriority(Id runId, int priority, const std::string& model = {},
                           const std::string& task = {});
    void setRunBackend(Id runId, const std::string& backend);
    std::string runBackend(Id runId);
    std::string runStatus(Id runId);
    int runPriority(Id runId);

    // Marks the unfinished attempts of a run (optionally only those of one model and/or task)
    // cancelled; an engine working on them notices on its next heartbeat. Returns how many.
    int cancelAttempts(Id runId, const std::string& model, const std::string& task,
                       const std::string& message);
    // Moves an attempt to its next phase unless it was cancelled meanwhile; false then.
    bool advanceAttempt(Id attemptId, const std::string& status);
    // Status of each of the given attempts.
    std::map<Id, std::string> attemptStatuses(const std::vector<Id>& ids);

    // One more transient failure of an attempt; returns the new count of tries.
    int recordRetry(Id attemptId, double nextTryAt, const std::string& reason);
    int tries(Id attemptId);

    // Attempts finished in the last windowSeconds (ending now).
    RunThroughput throughput(Id runId, double windowSeconds);

private:
    Connection& m_conn;
};

} // namespace kb::db
