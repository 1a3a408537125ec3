#pragma once
// Runs, their attempts and the conversation turns of each attempt.

#include "records.h"
#include "sqlite.h"

#include <map>
#include <optional>
#include <vector>

namespace kb::db {

class RunNotFinishedError : public Error {
public:
    using Error::Error;
};

class RunRepository {
public:
    explicit RunRepository(Connection& conn)
        : m_conn(conn) {}

    // Creates the run and its whole matrix of queued attempts in one transaction.
    Id createRun(const RunRow& run, const std::vector<Id>& modelIds, const std::vector<Id>& taskIds,
                 int samplesPerTask);
    std::vector<RunRow> runs();
    std::optional<RunRow> run(Id runId);
    // Throws RunNotFinishedError, changing nothing, when asked for RunStatus::Finished while some
    // attempt of the run is queued or in progress (or the run has none).
    void setRunStatus(Id runId, const std::string& status, const std::string& message = {});

    // Attempts of a run (all runs when runId is 0), with model and task names joined.
    std::vector<AttemptRow> attempts(Id runId = 0);
    // One page of a run's attempts (runId 0: every run) in id order, for long result lists.
    std::vector<AttemptRow> attemptsPage(Id runId, int offset, int limit);
    std::optional<AttemptRow> attempt(Id attemptId);
    // Per model and task of a run (runId 0: every run), the attempts summed from task_summaries
    // (one row per model id and task id).
    std::vector<TaskSummaryRow> taskSummaries(Id runId = 0);
    std::vector<Id> queuedAttemptIds(Id runId);
    std::map<std::string, int> statusCounts(Id runId);

    // Puts attempts that a stopped engine left half-way back in the queue and removes what they
    // had produced, so nothing is stored or counted twice. Returns how many were re-queued.
    int requeueInterrupted(Id runId);
    void setAttemptStatus(Id attemptId, const std::string& status);
    // Ends an attempt without an evaluation (no candidate, provider failure, harness failure).
    void finishAttempt(Id attemptId, const std::string& status, const std::string& verdict,
                       const std::string& message);
    // A person's decision on a suspicious attempt.
    void setReview(Id attemptId, const std::string& review, const std::string& note);

    Id addTurn(const TurnRow& turn);
    std::vector<TurnRow> turns(Id attemptId);
    // The next free turn index of an attempt (0 for the first).
    int nextTurnIndex(Id attemptId);
    // attempts.cost_usd = the sum of its turns' costs (NULL when no turn has a price).
    void updateAttemptCost(Id attemptId);
    // Every candidate of an attempt (one per evaluated turn), oldest first.
    std::vector<CandidateRow> candidates(Id attemptId);

private:
    Connection& m_conn;
};

} // namespace kb::db
