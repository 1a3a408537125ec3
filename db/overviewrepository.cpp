#include "overviewrepository.h"

#include <set>

namespace kb::db {

std::vector<RunStatusCount> OverviewRepository::attemptStatusCounts() {
    Statement q(m_conn, "SELECT run_id, status, count(*) FROM attempts GROUP BY run_id, status");
    std::vector<RunStatusCount> out;
    while (q.step())
        out.push_back({q.int64(0), q.text(1), q.int32(2)});
    return out;
}

std::map<Id, std::vector<std::string>> OverviewRepository::modelsPerRun() {
    // Two small reads instead of a join over every attempt: the (run_id, model_id) pairs come
    // from the unique index on attempts.
    std::map<Id, std::string> names;
    Statement models(m_conn, "SELECT id, name FROM models");
    while (models.step())
        names[models.int64(0)] = models.text(1);
    std::map<Id, std::set<std::string>> perRun;
    Statement pairs(m_conn, "SELECT DISTINCT run_id, model_id FROM attempts");
    while (pairs.step())
        perRun[pairs.int64(0)].insert(names[pairs.int64(1)]);
    std::map<Id, std::vector<std::string>> out;
    for (auto& [runId, set] : perRun)
        out[runId].assign(set.begin(), set.end());
    return out;
}

std::vector<RunAttemptTotals> OverviewRepository::attemptTotals() {
    // The verdict's position in the list makes a sum that changes when a verdict does.
    Statement q(
        m_conn,
        "SELECT run_id, sum(verdict = 'correct'), sum(suspicious <> 0 AND review = 'none'), "
        "sum(verdict = 'rejected' OR review = 'rejected'), sum(review = 'accepted'), "
        "total(speedup_eager), total(speedup_compile), total(cost_usd), max(id), "
        "sum(instr('pending correct incorrect build_error runtime_error timeout rejected "
        "invalid_candidate no_candidate harness_error provider_error infra_error', "
        "verdict)) FROM attempts GROUP BY run_id");
    std::vector<RunAttemptTotals> out;
    while (q.step()) {
        RunAttemptTotals t;
        t.runId = q.int64(0);
        t.correct = q.int32(1);
        t.suspicious = q.int32(2);
        t.rejected = q.int32(3);
        t.accepted = q.int32(4);
        for (int column = 1; column <= 9; ++column)
            t.fingerprint += q.text(column) + ',';
        out.push_back(std::move(t));
    }
    return out;
}

std::map<Id, double> OverviewRepository::attemptCosts(Id runId) {
    Statement q(m_conn, runId == 0 ? "SELECT id, cost_usd FROM attempts WHERE cost_usd IS NOT NULL"
                                   : "SELECT id, cost_usd FROM attempts WHERE run_id = ? AND "
                                     "cost_usd IS NOT NULL");
    if (runId != 0)
        q.bind(1, runId);
    std::map<Id, double> out;
    while (q.step())
        out[q.int64(0)] = q.real(1);
    return out;
}

std::vector<ModelUsageRow> OverviewRepository::modelUsage() {
    std::map<Id, ModelUsageRow> byModel;
    Statement attempts(
        m_conn, "SELECT model_id, count(*), coalesce(sum(cost_usd), 0), "
                "coalesce(sum(CASE WHEN started_at IS NOT NULL AND finished_at IS NOT NULL "
                "THEN (julianday(finished_at) - julianday(started_at)) * 86400.0 END), 0), "
                "count(CASE WHEN started_at IS NOT NULL AND finished_at IS NOT NULL THEN 1 END) "
                "FROM attempts GROUP BY model_id");
    while (attempts.step()) {
        auto& u = byModel[attempts.int64(0)];
        u.attempts = attempts.int32(1);
        u.costUsd = attempts.real(2);
        u.wallSeconds = attempts.real(3);
        u.finished = attempts.int32(4);
    }
    Statement turns(m_conn, "SELECT a.model_id, count(*), coalesce(sum(t.input_tokens), 0), "
                            "coalesce(sum(t.output_tokens), 0) FROM turns t JOIN attempts a "
                            "ON a.id = t.attempt_id GROUP BY a.model_id");
    while (turns.step()) {
        auto& u = byModel[turns.int64(0)];
        u.turns = turns.int32(1);
        u.inputTokens = turns.int64(2);
        u.outputTokens = turns.int64(3);
    }
    std::vector<ModelUsageRow> out;
    for (auto& [modelId, usage] : byModel) {
        usage.modelId = modelId;
        out.push_back(usage);
    }
    return out;
}

} // namespace kb::db
