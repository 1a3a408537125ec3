#include "monitorrepository.h"

#include <algorithm>

namespace kb::db {

std::vector<ModelStateCount> MonitorRepository::stateCounts(Id runId) {
    Statement q(m_conn, "SELECT m.name, a.status, a.verdict, count(*) FROM attempts a "
                        "JOIN models m ON m.id = a.model_id WHERE a.run_id = ? "
                        "GROUP BY m.name, a.status, a.verdict");
    q.bind(1, runId);
    std::vector<ModelStateCount> out;
    while (q.step())
        out.push_back({q.text(0), q.text(1), q.text(2), q.int32(3)});
    return out;
}

FinishRate MonitorRepository::finishRate(Id runId, double windowSeconds) {
    Statement q(m_conn,
                "SELECT (SELECT count(*) FROM attempts WHERE run_id = ?1 AND finished_at IS NOT "
                "NULL AND (julianday('now') - julianday(finished_at)) * 86400.0 <= ?2), "
                "(SELECT (julianday('now') - julianday(started_at)) * 86400.0 FROM runs "
                "WHERE id = ?1)");
    q.bind(1, runId).bind(2, windowSeconds);
    FinishRate rate;
    if (q.step()) {
        rate.finishedInWindow = q.int32(0);
        rate.secondsSinceStart = q.optReal(1);
    }
    return rate;
}

std::vector<FinishedAttemptRow> MonitorRepository::recentlyFinished(Id runId, int limit) {
    Statement q(m_conn,
                "SELECT a.id, a.finished_at, m.name, t.task_key, a.status, a.verdict, "
                "a.speedup_eager, a.message FROM attempts a JOIN models m ON m.id = a.model_id "
                "JOIN tasks t ON t.id = a.task_id WHERE a.run_id = ? AND a.finished_at IS NOT NULL "
                "ORDER BY a.finished_at DESC, a.id DESC LIMIT ?");
    q.bind(1, runId).bind(2, limit);
    std::vector<FinishedAttemptRow> out;
    while (q.step())
        out.push_back({q.int64(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5),
                       q.optReal(6), q.text(7)});
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace kb::db
