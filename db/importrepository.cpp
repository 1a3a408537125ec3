#include "importrepository.h"

#include <set>
#include <tuple>

namespace kb::db {

Id ImportRepository::createImportedRun(const RunRow& run,
                                       std::vector<ImportedCandidateRow>& candidates) {
    Transaction tx(m_conn, Transaction::Lock::Immediate);
    Statement ins(
        m_conn, "INSERT INTO runs(name, suite_id, mode, settings_json, status) VALUES (?,?,?,?,?)");
    ins.bind(1, run.name).bind(2, run.suiteId).bind(3, run.mode).bind(4, run.settingsJson);
    ins.bind(5, toString(RunStatus::Created));
    ins.exec();
    const Id runId = m_conn.lastInsertId();
    Statement rm(m_conn, "INSERT OR IGNORE INTO run_models(run_id, model_id) VALUES (?,?)");
    // The task must belong to the run's suite: a candidate is never scored against another one.
    Statement taskOfSuite(m_conn, "SELECT count(*) FROM tasks WHERE id = ? AND suite_id = ?");
    Statement at(
        m_conn,
        "INSERT INTO attempts(run_id, model_id, task_id, sample_index, mode) VALUES (?,?,?,?,?)");
    Statement code(
        m_conn,
        "INSERT INTO imported_candidates(attempt_id, code, code_hash, origin) VALUES (?,?,?,?)");
    std::set<std::tuple<Id, Id, int>> seen;
    for (auto& c : candidates) {
        if (!seen.insert({c.modelId, c.taskId, c.sampleIndex}).second) {
            throw Error("two imported candidates for model " + std::to_string(c.modelId) +
                        ", task " + std::to_string(c.taskId) + ", sample " +
                        std::to_string(c.sampleIndex) + " (" + c.origin + ")");
        }
        taskOfSuite.bind(1, c.taskId).bind(2, run.suiteId);
        const bool ofSuite = taskOfSuite.step() && taskOfSuite.int64(0) == 1;
        taskOfSuite.reset();
        if (!ofSuite)
            throw Error("task " + std::to_string(c.taskId) + " is not a task of the run's suite (" +
                        c.origin + ")");
        rm.bind(1, runId).bind(2, c.modelId).exec();
        at.bind(1, runId)
            .bind(2, c.modelId)
            .bind(3, c.taskId)
            .bind(4, c.sampleIndex)
            .bind(5, run.mode)
            .exec();
        c.attemptId = m_conn.lastInsertId();
        code.bind(1, c.attemptId).bind(2, c.code).bind(3, c.codeHash).bind(4, c.origin).exec();
    }
    tx.commit();
    return runId;
}

std::optional<ImportedCandidateRow> ImportRepository::importedCandidate(Id attemptId) {
    Statement q(
        m_conn,
        "SELECT i.attempt_id, a.model_id, a.task_id, a.sample_index, i.code, i.code_hash, i.origin "
        "FROM imported_candidates i JOIN attempts a ON a.id = i.attempt_id WHERE i.attempt_id = ?");
    q.bind(1, attemptId);
    if (!q.step())
        return std::nullopt;
    ImportedCandidateRow r;
    r.attemptId = q.int64(0);
    r.modelId = q.int64(1);
    r.taskId = q.int64(2);
    r.sampleIndex = q.int32(3);
    r.code = q.text(4);
    r.codeHash = q.text(5);
    r.origin = q.text(6);
    return r;
}

int ImportRepository::importedCount(Id runId) {
    Statement q(m_conn,
                "SELECT count(*) FROM imported_candidates i JOIN attempts a ON a.id = i.attempt_id "
                "WHERE a.run_id = ?");
    q.bind(1, runId);
    return q.step() ? q.int32(0) : 0;
}

} // namespace kb::db
