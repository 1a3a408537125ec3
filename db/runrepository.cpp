#include "runrepository.h"

#include "statussql.h"

namespace kb::db {
namespace {

constexpr const char* kRunSelect =
    "SELECT r.id, r.name, r.suite_id, r.mode, r.settings_json, r.status, r.created_at, "
    "r.started_at, r.finished_at, r.message, s.name FROM runs r JOIN suites s ON s.id = "
    "r.suite_id ";

RunRow readRun(const Statement& q) {
    RunRow r;
    r.id = q.int64(0);
    r.name = q.text(1);
    r.suiteId = q.int64(2);
    r.mode = q.text(3);
    r.settingsJson = q.text(4);
    r.status = q.text(5);
    r.createdAt = q.text(6);
    if (!q.isNull(7))
        r.startedAt = q.text(7);
    if (!q.isNull(8))
        r.finishedAt = q.text(8);
    r.message = q.text(9);
    r.suiteName = q.text(10);
    return r;
}

constexpr const char* kAttemptSelectBase =
    "SELECT a.id, a.run_id, a.model_id, a.task_id, a.sample_index, a.mode, a.status, a.verdict, "
    "a.message, a.suspicious, a.review, a.review_note, a.speedup_eager, a.speedup_compile, "
    "a.started_at, a.finished_at, m.name, t.task_key, t.name, t.level, "
    "(SELECT coalesce(sum(input_tokens),0) FROM turns WHERE attempt_id = a.id), "
    "(SELECT coalesce(sum(output_tokens),0) FROM turns WHERE attempt_id = a.id), "
    "(SELECT count(*) FROM turns WHERE attempt_id = a.id), "
    "u.speedup_eager_low, u.speedup_eager_high, u.speedup_compile_low, u.speedup_compile_high, "
    "coalesce(u.noisy_eager, 0), coalesce(u.noisy_compile, 0), coalesce(u.regime, ''), a.cost_usd "
    "FROM attempts a JOIN models m ON m.id = a.model_id JOIN tasks t ON t.id = a.task_id "
    "LEFT JOIN attempt_timing u ON u.attempt_id = a.id ";

// The attempt columns. An older database opened read-only (not migrated to schema 7) has no
// attempt_timing and no clearing columns in task_summaries: they read as their defaults.
bool hasSchema7(Connection& conn) {
    Statement q(
        conn,
        "SELECT count(*) FROM pragma_table_info('task_summaries') WHERE name = 'clear_eager'");
    return q.step() && q.int64(0) > 0;
}

std::string attemptSelect(Connection& conn) {
    std::string sql = kAttemptSelectBase;
    Statement timing(
        conn,
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'attempt_timing'");
    if (timing.step() && timing.int64(0) == 0) {
        const std::string columns =
            "u.speedup_eager_low, u.speedup_eager_high, u.speedup_compile_low, "
            "u.speedup_compile_high, coalesce(u.noisy_eager, 0), "
            "coalesce(u.noisy_compile, 0), coalesce(u.regime, '')";
        sql.replace(sql.find(columns), columns.size(), "NULL, NULL, NULL, NULL, 0, 0, ''");
        const std::string join = "LEFT JOIN attempt_timing u ON u.attempt_id = a.id ";
        sql.erase(sql.find(join), join.size());
    }
    return sql;
}

AttemptRow readAttempt(const Statement& q) {
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
    a.review = q.text(10);
    a.reviewNote = q.text(11);
    a.speedupEager = q.optReal(12);
    a.speedupCompile = q.optReal(13);
    if (!q.isNull(14))
        a.startedAt = q.text(14);
    if (!q.isNull(15))
        a.finishedAt = q.text(15);
    a.modelName = q.text(16);
    a.taskKey = q.text(17);
    a.taskName = q.text(18);
    a.level = q.int32(19);
    a.inputTokens = q.int64(20);
    a.outputTokens = q.int64(21);
    a.turns = q.int32(22);
    a.uncertainty.eagerLow = q.optReal(23);
    a.uncertainty.eagerHigh = q.optReal(24);
    a.uncertainty.compileLow = q.optReal(25);
    a.uncertainty.compileHigh = q.optReal(26);
    a.uncertainty.noisyEager = q.int64(27) != 0;
    a.uncertainty.noisyCompile = q.int64(28) != 0;
    a.uncertainty.regime = q.text(29);
    a.costUsd = q.optReal(30);
    return a;
}

} // namespace

Id RunRepository::createRun(const RunRow& run, const std::vector<Id>& modelIds,
                            const std::vector<Id>& taskIds, int samplesPerTask) {
    Transaction tx(m_conn);
    Statement ins(m_conn, "INSERT INTO runs(name, suite_id, mode, settings_json, status) "
                          "VALUES (?,?,?,?," +
                              sqlLiteral(RunStatus::Created) + ")");
    ins.bind(1, run.name).bind(2, run.suiteId).bind(3, run.mode).bind(4, run.settingsJson);
    ins.exec();
    const Id runId = m_conn.lastInsertId();
    Statement rm(m_conn, "INSERT INTO run_models(run_id, model_id) VALUES (?,?)");
    Statement at(m_conn, "INSERT INTO attempts(run_id, model_id, task_id, sample_index, mode) "
                         "VALUES (?,?,?,?,?)");
    for (Id model : modelIds) {
        rm.bind(1, runId).bind(2, model).exec();
        for (Id task : taskIds) {
            for (int k = 0; k < samplesPerTask; ++k)
                at.bind(1, runId).bind(2, model).bind(3, task).bind(4, k).bind(5, run.mode).exec();
        }
    }
    tx.commit();
    return runId;
}

std::vector<RunRow> RunRepository::runs() {
    Statement q(m_conn, std::string(kRunSelect) + "ORDER BY r.id DESC");
    std::vector<RunRow> out;
    while (q.step())
        out.push_back(readRun(q));
    return out;
}

std::optional<RunRow> RunRepository::run(Id runId) {
    Statement q(m_conn, std::string(kRunSelect) + "WHERE r.id = ?");
    q.bind(1, runId);
    if (!q.step())
        return std::nullopt;
    return readRun(q);
}

void RunRepository::setRunStatus(Id runId, const std::string& status, const std::string& message) {
    Statement q(m_conn,
                "UPDATE runs SET status = ?1, message = ?2, "
                "started_at = CASE WHEN ?1 = " +
                    sqlLiteral(RunStatus::Running) +
                    " AND started_at IS NULL "
                    "  THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') ELSE started_at END, "
                    "finished_at = CASE WHEN ?1 IN " +
                    sqlList({RunStatus::Finished, RunStatus::Failed, RunStatus::Cancelled}) +
                    "  THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') ELSE NULL END "
                    "WHERE id = ?3");
    if (parseRunStatus(status) == RunStatus::Finished) {
        // A run is finished when each of its attempts has ended; one still queued or half-way
        // (e.g. unreadable from a damaged file) means the engine stopped early, not that it is
        // done.
        Statement open(
            m_conn, "SELECT count(*), coalesce(sum(status = " + sqlLiteral(AttemptStatus::Queued) +
                        "), 0) FROM attempts WHERE run_id = ? AND status IN " +
                        sqlPendingAttemptStatuses());
        open.bind(1, runId);
        open.step();
        if (open.int64(0) > 0) {
            throw RunNotFinishedError(
                "run " + std::to_string(runId) + " cannot be marked finished: " +
                std::to_string(open.int64(0)) + " of its attempts (" +
                std::to_string(open.int64(1)) + " queued) were not evaluated; it stays resumable");
        }
        Statement any(m_conn, "SELECT count(*) FROM attempts WHERE run_id = ?");
        any.bind(1, runId);
        any.step();
        if (any.int64(0) == 0) {
            throw RunNotFinishedError("run " + std::to_string(runId) +
                                      " cannot be marked finished: it has no attempt at all");
        }
    }
    q.bind(1, status).bind(2, message).bind(3, runId).exec();
    if (m_conn.changes() != 1)
        throw Error("no run with id " + std::to_string(runId));
}

std::vector<AttemptRow> RunRepository::attempts(Id runId) {
    Statement q(m_conn, attemptSelect(m_conn) +
                            "WHERE ?1 = 0 OR a.run_id = ?1 "
                            "ORDER BY a.run_id, t.level, t.task_key, m.name, a.sample_index");
    q.bind(1, runId);
    std::vector<AttemptRow> out;
    while (q.step())
        out.push_back(readAttempt(q));
    return out;
}

std::vector<AttemptRow> RunRepository::attemptsPage(Id runId, int offset, int limit) {
    // Two query shapes so that a single run's page uses the run index.
    Statement q(m_conn, attemptSelect(m_conn) +
                            (runId == 0 ? "WHERE ?1 = 0 " : "WHERE a.run_id = ?1 ") +
                            "ORDER BY a.id LIMIT ?2 OFFSET ?3");
    q.bind(1, runId).bind(2, limit).bind(3, offset);
    std::vector<AttemptRow> out;
    while (q.step())
        out.push_back(readAttempt(q));
    return out;
}

std::optional<AttemptRow> RunRepository::attempt(Id attemptId) {
    Statement q(m_conn, attemptSelect(m_conn) + "WHERE a.id = ?");
    q.bind(1, attemptId);
    if (!q.step())
        return std::nullopt;
    return readAttempt(q);
}

std::vector<TaskSummaryRow> RunRepository::taskSummaries(Id runId) {
    // Two query shapes: one run's rows through the run index, every run's in key order.
    Statement q(
        m_conn,
        std::string("SELECT m.name, t.task_key, t.level, s.* FROM (SELECT model_id, task_id, "
                    "sum(attempts), sum(samples), max(built), sum(scoring), max(best_eager), "
                    "max(best_compile), max(compile_seen), sum(suspicious), "
                    "sum(accepted_suspicious), sum(rejected), sum(input_tokens), "
                    "sum(output_tokens), sum(turns), " +
                    std::string(hasSchema7(m_conn) ? "max(clear_eager), max(clear_compile), "
                                                     "sum(noisy), sum(cost_usd) "
                                                   : "NULL, NULL, 0, 0 ") +
                    "FROM task_summaries ") +
            (runId == 0 ? "WHERE ?1 = 0 " : "WHERE run_id = ?1 ") +
            "GROUP BY model_id, task_id) s JOIN models m ON m.id = s.model_id "
            "JOIN tasks t ON t.id = s.task_id");
    q.bind(1, runId);
    std::vector<TaskSummaryRow> out;
    while (q.step()) {
        TaskSummaryRow r;
        r.modelName = q.text(0);
        r.taskKey = q.text(1);
        r.level = q.int32(2);
        r.attempts = q.int64(5);
        r.samples = q.int64(6);
        r.built = q.int64(7) != 0;
        r.scoring = q.int64(8);
        r.bestEager = q.optReal(9);
        r.bestCompile = q.optReal(10);
        r.compileSeen = q.int64(11) != 0;
        r.suspicious = q.int64(12);
        r.acceptedSuspicious = q.int64(13);
        r.rejected = q.int64(14);
        r.inputTokens = q.int64(15);
        r.outputTokens = q.int64(16);
        r.turns = q.int64(17);
        r.clearEager = q.optReal(18);
        r.clearCompile = q.optReal(19);
        r.noisy = q.int64(20);
        r.costUsd = q.real(21);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<Id> RunRepository::queuedAttemptIds(Id runId) {
    Statement q(m_conn, "SELECT a.id FROM attempts a JOIN tasks t ON t.id = a.task_id "
                        "WHERE a.run_id = ? AND a.status = " +
                            sqlLiteral(AttemptStatus::Queued) +
                            " ORDER BY t.level, t.task_key, a.model_id, a.sample_index");
    q.bind(1, runId);
    std::vector<Id> out;
    while (q.step())
        out.push_back(q.int64(0));
    return out;
}

std::map<std::string, int> RunRepository::statusCounts(Id runId) {
    Statement q(m_conn, "SELECT status, count(*) FROM attempts WHERE run_id = ? GROUP BY status");
    q.bind(1, runId);
    std::map<std::string, int> out;
    while (q.step())
        out[q.text(0)] = q.int32(1);
    return out;
}

int RunRepository::requeueInterrupted(Id runId) {
    Transaction tx(m_conn);
    const std::string interrupted =
        "SELECT id FROM attempts WHERE run_id = ?1 AND status IN " + sqlActiveAttemptStatuses();
    for (const char* table : {"evaluations", "candidates", "turns", "findings"}) {
        Statement del(m_conn, std::string("DELETE FROM ") + table + " WHERE attempt_id IN (" +
                                  interrupted + ")");
        del.bind(1, runId).exec();
    }
    Statement q(m_conn, "UPDATE attempts SET status = " + sqlLiteral(AttemptStatus::Queued) +
                            ", verdict = 'pending', message = '', "
                            "started_at = NULL WHERE run_id = ?1 AND status IN " +
                            sqlActiveAttemptStatuses());
    q.bind(1, runId).exec();
    const int n = m_conn.changes();
    tx.commit();
    return n;
}

void RunRepository::setAttemptStatus(Id attemptId, const std::string& status) {
    Statement q(m_conn,
                "UPDATE attempts SET status = ?1, started_at = CASE WHEN started_at IS NULL "
                "AND ?1 <> " +
                    sqlLiteral(AttemptStatus::Queued) +
                    " THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') "
                    "ELSE started_at END WHERE id = ?2");
    q.bind(1, status).bind(2, attemptId).exec();
}

void RunRepository::finishAttempt(Id attemptId, const std::string& status,
                                  const std::string& verdict, const std::string& message) {
    Statement q(m_conn, "UPDATE attempts SET status = ?, verdict = ?, message = ?, "
                        "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?");
    q.bind(1, status).bind(2, verdict).bind(3, message).bind(4, attemptId).exec();
}

void RunRepository::setReview(Id attemptId, const std::string& review, const std::string& note) {
    Statement q(m_conn, "UPDATE attempts SET review = ?, review_note = ? WHERE id = ?");
    q.bind(1, review).bind(2, note).bind(3, attemptId).exec();
    if (m_conn.changes() != 1)
        throw Error("no attempt with id " + std::to_string(attemptId));
}

Id RunRepository::addTurn(const TurnRow& t) {
    Statement q(m_conn,
                "INSERT INTO turns(attempt_id, turn_index, prompt, response, input_tokens, "
                "output_tokens, latency_ms, stop_reason, role, messages_json, tool_calls_json, "
                "cache_read_tokens, cache_write_tokens, reasoning, cost_usd, error) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    q.bind(1, t.attemptId).bind(2, t.turnIndex).bind(3, t.prompt).bind(4, t.response);
    q.bind(5, t.inputTokens).bind(6, t.outputTokens).bind(7, t.latencyMs).bind(8, t.stopReason);
    q.bind(9, t.role)
        .bind(10, t.messagesJson)
        .bind(11, t.toolCallsJson)
        .bind(12, t.cacheReadTokens);
    q.bind(13, t.cacheWriteTokens).bind(14, t.reasoning).bind(15, t.costUsd).bind(16, t.error);
    q.exec();
    const Id id = m_conn.lastInsertId();
    if (t.ttftMs || !t.modelSnapshot.empty()) {
        Statement d(m_conn,
                    "INSERT INTO turn_details(turn_id, ttft_ms, model_snapshot) VALUES (?,?,?)");
        d.bind(1, id).bind(2, t.ttftMs).bind(3, t.modelSnapshot);
        d.exec();
    }
    return id;
}

std::vector<TurnRow> RunRepository::turns(Id attemptId) {
    Statement q(m_conn,
                "SELECT t.id, attempt_id, turn_index, prompt, response, input_tokens, "
                "output_tokens, latency_ms, stop_reason, role, messages_json, tool_calls_json, "
                "cache_read_tokens, cache_write_tokens, reasoning, cost_usd, error, d.ttft_ms, "
                "coalesce(d.model_snapshot, '') FROM turns t "
                "LEFT JOIN turn_details d ON d.turn_id = t.id "
                "WHERE attempt_id = ? ORDER BY turn_index");
    q.bind(1, attemptId);
    std::vector<TurnRow> out;
    while (q.step()) {
        TurnRow t;
        t.id = q.int64(0);
        t.attemptId = q.int64(1);
        t.turnIndex = q.int32(2);
        t.prompt = q.text(3);
        t.response = q.text(4);
        t.inputTokens = q.int64(5);
        t.outputTokens = q.int64(6);
        t.latencyMs = q.real(7);
        t.stopReason = q.text(8);
        t.role = q.text(9);
        t.messagesJson = q.text(10);
        t.toolCallsJson = q.text(11);
        t.cacheReadTokens = q.int64(12);
        t.cacheWriteTokens = q.int64(13);
        t.reasoning = q.text(14);
        t.costUsd = q.optReal(15);
        t.error = q.text(16);
        t.ttftMs = q.optReal(17);
        t.modelSnapshot = q.text(18);
        out.push_back(std::move(t));
    }
    return out;
}

int RunRepository::nextTurnIndex(Id attemptId) {
    Statement q(m_conn, "SELECT coalesce(max(turn_index) + 1, 0) FROM turns WHERE attempt_id = ?");
    q.bind(1, attemptId);
    return q.step() ? q.int32(0) : 0;
}

void RunRepository::updateAttemptCost(Id attemptId) {
    Statement q(m_conn, "UPDATE attempts SET cost_usd = (SELECT sum(cost_usd) FROM turns "
                        "WHERE attempt_id = ?1) WHERE id = ?1");
    q.bind(1, attemptId).exec();
}

std::vector<CandidateRow> RunRepository::candidates(Id attemptId) {
    Statement q(m_conn,
                "SELECT id, attempt_id, turn_index, code, code_hash, format FROM candidates "
                "WHERE attempt_id = ? ORDER BY id");
    q.bind(1, attemptId);
    std::vector<CandidateRow> out;
    while (q.step())
        out.push_back({q.int64(0), q.int64(1), q.int32(2), q.text(3), q.text(4), q.text(5)});
    return out;
}

} // namespace kb::db
