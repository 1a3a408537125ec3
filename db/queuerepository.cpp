#include "queuerepository.h"

#include "statussql.h"

namespace kb::db {

std::vector<Id> QueueRepository::queuedAttempts(Id runId) {
    Statement q(m_conn,
                "SELECT a.id FROM attempts a JOIN tasks t ON t.id = a.task_id "
                "WHERE a.run_id = ? AND a.status = " +
                    sqlLiteral(AttemptStatus::Queued) +
                    " "
                    "ORDER BY a.priority DESC, t.level, t.task_key, a.model_id, a.sample_index");
    q.bind(1, runId);
    std::vector<Id> out;
    while (q.step())
        out.push_back(q.int64(0));
    return out;
}

void QueueRepository::setRunPriority(Id runId, int priority) {
    Statement q(m_conn, "UPDATE runs SET priority = ? WHERE id = ?");
    q.bind(1, priority).bind(2, runId).exec();
    if (m_conn.changes() != 1)
        throw Error("no run with id " + std::to_string(runId));
}

int QueueRepository::setAttemptPriority(Id runId, int priority, const std::string& model,
                                        const std::string& task) {
    Statement q(m_conn, "UPDATE attempts SET priority = ?1 WHERE run_id = ?2 "
                        "AND (?3 = '' OR model_id IN (SELECT id FROM models WHERE name = ?3)) "
                        "AND (?4 = '' OR task_id IN (SELECT id FROM tasks WHERE task_key = ?4))");
    q.bind(1, priority).bind(2, runId).bind(3, model).bind(4, task).exec();
    return m_conn.changes();
}

void QueueRepository::setRunBackend(Id runId, const std::string& backend) {
    Statement q(m_conn, "UPDATE runs SET backend = ? WHERE id = ?");
    q.bind(1, backend).bind(2, runId).exec();
}

std::string QueueRepository::runBackend(Id runId) {
    Statement q(m_conn, "SELECT backend FROM runs WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? q.text(0) : std::string();
}

std::string QueueRepository::runStatus(Id runId) {
    Statement q(m_conn, "SELECT status FROM runs WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? q.text(0) : std::string();
}

int QueueRepository::runPriority(Id runId) {
    Statement q(m_conn, "SELECT priority FROM runs WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? q.int32(0) : 0;
}

int QueueRepository::cancelAttempts(Id runId, const std::string& model, const std::string& task,
                                    const std::string& message) {
    Statement q(m_conn,
                "UPDATE attempts SET status = " + sqlLiteral(AttemptStatus::Cancelled) +
                    ", message = ?1, "
                    "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE run_id = ?2 "
                    "AND status IN " +
                    sqlPendingAttemptStatuses() +
                    " "
                    "AND (?3 = '' OR model_id IN (SELECT id FROM models WHERE name = ?3)) "
                    "AND (?4 = '' OR task_id IN (SELECT id FROM tasks WHERE task_key = ?4))");
    q.bind(1, message).bind(2, runId).bind(3, model).bind(4, task).exec();
    return m_conn.changes();
}

bool QueueRepository::advanceAttempt(Id attemptId, const std::string& status) {
    Statement q(m_conn, "UPDATE attempts SET status = ?1, started_at = coalesce(started_at, "
                        "strftime('%Y-%m-%dT%H:%M:%fZ','now')) WHERE id = ?2 AND status <> " +
                            sqlLiteral(AttemptStatus::Cancelled));
    q.bind(1, status).bind(2, attemptId).exec();
    return m_conn.changes() == 1;
}

std::map<Id, std::string> QueueRepository::attemptStatuses(const std::vector<Id>& ids) {
    std::map<Id, std::string> out;
    Statement q(m_conn, "SELECT status FROM attempts WHERE id = ?");
    for (Id id : ids) {
        q.bind(1, id);
        if (q.step())
            out[id] = q.text(0);
        q.reset();
    }
    return out;
}

int QueueRepository::recordRetry(Id attemptId, double nextTryAt, const std::string& reason) {
    Statement q(m_conn,
                "UPDATE attempts SET tries = tries + 1, next_try_at = ?, message = ? WHERE id = ?");
    q.bind(1, nextTryAt).bind(2, reason).bind(3, attemptId).exec();
    return tries(attemptId);
}

int QueueRepository::tries(Id attemptId) {
    Statement q(m_conn, "SELECT tries FROM attempts WHERE id = ?");
    q.bind(1, attemptId);
    return q.step() ? q.int32(0) : 0;
}

RunThroughput QueueRepository::throughput(Id runId, double windowSeconds) {
    Statement q(m_conn,
                "SELECT count(*) FROM attempts WHERE run_id = ? AND finished_at IS NOT NULL "
                "AND status IN " +
                    sqlList({AttemptStatus::Done, AttemptStatus::Failed}) +
                    " "
                    "AND (julianday('now') - julianday(finished_at)) * 86400.0 <= ?");
    q.bind(1, runId).bind(2, windowSeconds);
    RunThroughput t;
    t.windowSeconds = windowSeconds;
    if (q.step())
        t.finishedInWindow = q.int32(0);
    return t;
}

} // namespace kb::db
