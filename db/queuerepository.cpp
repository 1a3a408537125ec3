#include "queuerepository.h"

namespace kb::db {

std::vector<Id> QueueRepository::queuedAttempts(Id runId)
{
    Statement q(m_conn, "SELECT a.id FROM attempts a JOIN tasks t ON t.id = a.task_id "
                        "WHERE a.run_id = ? AND a.status = 'queued' "
                        "ORDER BY a.priority DESC, t.level, t.task_key, a.model_id, a.sample_index");
    q.bind(1, runId);
    std::vector<Id> out;
    while (q.step())
        out.push_back(q.int64(0));
    return out;
}

void QueueRepository::setRunPriority(Id runId, int priority)
{
    Statement q(m_conn, "UPDATE runs SET priority = ? WHERE id = ?");
    q.bind(1, priority).bind(2, runId).exec();
    if (m_conn.changes() != 1)
        throw Error("no run with id " + std::to_string(runId));
}

int QueueRepository::setAttemptPriority(Id runId, int priority, const std::string& model, const std::string& task)
{
    Statement q(m_conn, "UPDATE attempts SET priority = ?1 WHERE run_id = ?2 "
                        "AND (?3 = '' OR model_id IN (SELECT id FROM models WHERE name = ?3)) "
                        "AND (?4 = '' OR task_id IN (SELECT id FROM tasks WHERE task_key = ?4))");
    q.bind(1, priority).bind(2, runId).bind(3, model).bind(4, task).exec();
    return m_conn.changes();
}

void QueueRepository::setRunBackend(Id runId, const std::string& backend)
{
    Statement q(m_conn, "UPDATE runs SET backend = ? WHERE id = ?");
    q.bind(1, backend).bind(2, runId).exec();
}

std::string QueueRepository::runBackend(Id runId)
{
    Statement q(m_conn, "SELECT backend FROM runs WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? q.text(0) : std::string();
}

std::string QueueRepository::runStatus(Id runId)
{
    Statement q(m_conn, "SELECT status FROM runs WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? q.text(0) : std::string();
}

int QueueRepository::runPriority(Id runId)
{
    Statement q(m_conn, "SELECT priority FROM runs WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? q.int32(0) : 0;
}

int QueueRepository::cancelAttempts(Id runId, const std::string& model, const std::string& task,
                                    const std::string& message)
{
    Statement q(m_conn, "UPDATE attempts SET status = 'cancelled', message = ?1, "
                        "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE run_id = ?2 "
                        "AND status IN ('queued','generating','building','evaluating') "
                        "AND (?3 = '' OR model_id IN (SELECT id FROM models WHERE name = ?3)) "
                        "AND (?4 = '' OR task_id IN (SELECT id FROM tasks WHERE task_key = ?4))");
    q.bind(1, message).bind(2, runId).bind(3, model).bind(4, task).exec();
    return m_conn.changes();
}

bool QueueRepository::advanceAttempt(Id attemptId, const std::string& status)
{
    Statement q(m_conn, "UPDATE attempts SET status = ?1, started_at = coalesce(started_at, "
                        "strftime('%Y-%m-%dT%H:%M:%fZ','now')) WHERE id = ?2 AND status <> 'cancelled'");
    q.bind(1, status).bind(2, attemptId).exec();
    return m_conn.changes() == 1;
}

std::map<Id, std::string> QueueRepository::attemptStatuses(const std::vector<Id>& ids)
{
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

int QueueRepository::recordRetry(Id attemptId, double nextTryAt, const std::string& reason)
{
    Statement q(m_conn, "UPDATE attempts SET tries = tries + 1, next_try_at = ?, message = ? WHERE id = ?");
    q.bind(1, nextTryAt).bind(2, reason).bind(3, attemptId).exec();
    return tries(attemptId);
}

int QueueRepository::tries(Id attemptId)
{
    Statement q(m_conn, "SELECT tries FROM attempts WHERE id = ?");
    q.bind(1, attemptId);
    return q.step() ? q.int32(0) : 0;
}

RunThroughput QueueRepository::throughput(Id runId, double windowSeconds)
{
    Statement q(m_conn, "SELECT count(*) FROM attempts WHERE run_id = ? AND finished_at IS NOT NULL "
                        "AND status IN ('done','failed') "
                        "AND (julianday('now') - julianday(finished_at)) * 86400.0 <= ?");
    q.bind(1, runId).bind(2, windowSeconds);
    RunThroughput t;
    t.windowSeconds = windowSeconds;
    if (q.step())
        t.finishedInWindow = q.int32(0);
    return t;
}

std::vector<AttemptRow> QueueRepository::attemptsPage(Id runId, int offset, int limit)
{
    Statement q(m_conn,
                "SELECT a.id, a.run_id, a.model_id, a.task_id, a.sample_index, a.mode, a.status, "
                "a.verdict, a.message, a.suspicious, a.speedup_eager, a.speedup_compile, m.name, "
                "t.task_key, t.name, t.level, "
                "(SELECT coalesce(sum(input_tokens),0) FROM turns WHERE attempt_id = a.id), "
                "(SELECT coalesce(sum(output_tokens),0) FROM turns WHERE attempt_id = a.id), "
                "(SELECT count(*) FROM turns WHERE attempt_id = a.id) "
                "FROM attempts a JOIN models m ON m.id = a.model_id JOIN tasks t ON t.id = a.task_id "
                    + std::string(runId == 0 ? "WHERE ?1 = 0 " : "WHERE a.run_id = ?1 ") + "ORDER BY a.id LIMIT ?2 OFFSET ?3");
    q.bind(1, runId).bind(2, limit).bind(3, offset);
    std::vector<AttemptRow> out;
    while (q.step()) {
        AttemptRow a;
        a.id = q.int64(0);
        a.runId = q.int64(1);
        a.modelId = q.int64(2);
        a.taskId = q.int64(3);
        a.sampleIndex = q.int32(4);
        a.mode = q.text(5);
        a.status = q.text(6);
        a.verdict = q.text(7);
        a.message = q.text(8);
        a.suspicious = q.int64(9) != 0;
        a.speedupEager = q.optReal(10);
        a.speedupCompile = q.optReal(11);
        a.modelName = q.text(12);
        a.taskKey = q.text(13);
        a.taskName = q.text(14);
        a.level = q.int32(15);
        a.inputTokens = q.int64(16);
        a.outputTokens = q.int64(17);
        a.turns = q.int32(18);
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace kb::db
