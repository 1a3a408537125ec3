#include "faults.h"

namespace kb::engine {

bool isOperationalVerdict(const QString& verdict) {
    return verdict == kVerdictProviderError || verdict == kVerdictInfraError ||
           verdict == QLatin1String("harness_error");
}

int requeueOperationalFailures(db::Connection& conn, db::Id runId) {
    db::Statement q(
        conn,
        "UPDATE attempts SET status = 'queued', verdict = 'pending', message = '', "
        "tries = 0, next_try_at = NULL, lease_owner = NULL, lease_expires_at = NULL, "
        "finished_at = NULL "
        "WHERE run_id = ? AND status = 'failed' AND verdict IN ('provider_error','infra_error')");
    q.bind(1, runId).exec();
    return conn.changes();
}

OperationalCounts operationalCounts(db::Connection& conn, db::Id runId) {
    db::Statement q(conn,
                    "SELECT coalesce(sum(verdict = 'provider_error'), 0), "
                    "coalesce(sum(verdict = 'infra_error'), 0) FROM attempts WHERE run_id = ?");
    q.bind(1, runId);
    OperationalCounts c;
    if (q.step()) {
        c.provider = q.int32(0);
        c.infrastructure = q.int32(1);
    }
    return c;
}

bool ProviderFaultTracker::isRequestRefusal(int httpStatus) {
    return httpStatus == 400 || httpStatus == 401 || httpStatus == 403 || httpStatus == 404;
}

std::optional<QString> ProviderFaultTracker::noteFailure(const QString& model, int httpStatus,
                                                         const QString& message) {
    if (!isRequestRefusal(httpStatus)) {
        m_streak.remove(model);
        return std::nullopt;
    }
    const int n = ++m_streak[model];
    if (n < m_limit)
        return std::nullopt;
    return QStringLiteral(
               "stopped early: the provider of model %1 refused %2 requests in a row (%3). Fix the "
               "provider or model settings (key, base URL, parameters), then resume the run; the "
               "attempts it refused are queued again")
        .arg(model)
        .arg(n)
        .arg(message);
}

} // namespace kb::engine
