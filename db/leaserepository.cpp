#include "leaserepository.h"

#include "statussql.h"

#include <chrono>

namespace kb::db {
namespace {

constexpr const char* kEngineSelect =
    "SELECT id, owner, host, pid, kind, run_id, started_at, heartbeat_at, stopped_at FROM engines ";

EngineRow readEngine(const Statement& q) {
    EngineRow e;
    e.id = q.int64(0);
    e.owner = q.text(1);
    e.host = q.text(2);
    e.pid = q.int64(3);
    e.kind = q.text(4);
    e.runId = q.optInt64(5);
    e.startedAt = q.real(6);
    e.heartbeatAt = q.real(7);
    e.stoppedAt = q.optReal(8);
    return e;
}

} // namespace

double LeaseRepository::now() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

void LeaseRepository::registerEngine(const EngineRow& e) {
    Statement q(m_conn,
                "INSERT INTO engines(owner, host, pid, kind, run_id, started_at, heartbeat_at) "
                "VALUES (?,?,?,?,?,?,?)");
    q.bind(1, e.owner).bind(2, e.host).bind(3, e.pid).bind(4, e.kind).bind(5, e.runId);
    q.bind(6, e.startedAt).bind(7, e.heartbeatAt).exec();
}

void LeaseRepository::heartbeat(const std::string& owner, double now, double leaseSeconds) {
    Transaction tx(m_conn);
    Statement e(m_conn, "UPDATE engines SET heartbeat_at = ? WHERE owner = ?");
    e.bind(1, now).bind(2, owner).exec();
    Statement a(m_conn,
                std::string("UPDATE attempts SET lease_expires_at = ? WHERE lease_owner = ? "
                            "AND status IN ") +
                    sqlActiveAttemptStatuses());
    a.bind(1, now + leaseSeconds).bind(2, owner).exec();
    tx.commit();
}

void LeaseRepository::stopEngine(const std::string& owner, double now) {
    Statement q(m_conn, "UPDATE engines SET stopped_at = ?, run_id = NULL WHERE owner = ?");
    q.bind(1, now).bind(2, owner).exec();
}

std::vector<EngineRow> LeaseRepository::engines() {
    Statement q(m_conn, std::string(kEngineSelect) + "ORDER BY id");
    std::vector<EngineRow> out;
    while (q.step())
        out.push_back(readEngine(q));
    return out;
}

std::optional<EngineRow> LeaseRepository::engine(const std::string& owner) {
    Statement q(m_conn, std::string(kEngineSelect) + "WHERE owner = ?");
    q.bind(1, owner);
    if (!q.step())
        return std::nullopt;
    return readEngine(q);
}

std::optional<EngineRow> LeaseRepository::holderOf(Id runId, double now, double leaseSeconds) {
    Statement q(m_conn, std::string(kEngineSelect) +
                            "WHERE run_id = ? AND stopped_at IS NULL AND heartbeat_at > ? "
                            "ORDER BY heartbeat_at DESC LIMIT 1");
    q.bind(1, runId).bind(2, now - leaseSeconds);
    if (!q.step())
        return std::nullopt;
    return readEngine(q);
}

std::optional<EngineRow> LeaseRepository::newestEngine(Id runId) {
    Statement q(m_conn, std::string(kEngineSelect) + "WHERE run_id = ? AND stopped_at IS NULL "
                                                     "ORDER BY heartbeat_at DESC LIMIT 1");
    q.bind(1, runId);
    if (!q.step())
        return std::nullopt;
    return readEngine(q);
}

std::optional<EngineRow> LeaseRepository::claimRun(Id runId, const std::string& owner, double now,
                                                   double leaseSeconds) {
    // A write lock from the start: two engines checking at the same moment cannot both win.
    m_conn.exec("BEGIN IMMEDIATE");
    try {
        auto holder = holderOf(runId, now, leaseSeconds);
        if (holder && holder->owner != owner) {
            m_conn.exec("ROLLBACK");
            return holder;
        }
        Statement q(m_conn, "UPDATE engines SET run_id = ?, heartbeat_at = ? WHERE owner = ?");
        q.bind(1, runId).bind(2, now).bind(3, owner).exec();
        if (m_conn.changes() != 1)
            throw Error("engine " + owner + " is not registered");
        m_conn.exec("COMMIT");
    } catch (...) {
        try {
            m_conn.exec("ROLLBACK");
        } catch (...) {
        }
        throw;
    }
    return std::nullopt;
}

void LeaseRepository::releaseRun(const std::string& owner) {
    Statement q(m_conn, "UPDATE engines SET run_id = NULL WHERE owner = ?");
    q.bind(1, owner).exec();
}

bool LeaseRepository::acquireAttempt(Id attemptId, const std::string& owner, double now,
                                     double leaseSeconds) {
    Statement q(m_conn,
                "UPDATE attempts SET lease_owner = ?, lease_expires_at = ? "
                "WHERE id = ? AND status = " +
                    sqlLiteral(AttemptStatus::Queued) +
                    " AND (lease_owner IS NULL OR "
                    "lease_owner = ?1 OR lease_expires_at IS NULL OR lease_expires_at < ?4)");
    q.bind(1, owner).bind(2, now + leaseSeconds).bind(3, attemptId).bind(4, now).exec();
    return m_conn.changes() == 1;
}

void LeaseRepository::releaseAttempt(Id attemptId, const std::string& owner) {
    Statement q(m_conn, "UPDATE attempts SET lease_owner = NULL, lease_expires_at = NULL "
                        "WHERE id = ? AND lease_owner = ?");
    q.bind(1, attemptId).bind(2, owner).exec();
}

int LeaseRepository::requeueWhere(const std::string& condition, Id runId, const std::string& owner,
                                  double now) {
    // ?1 run, ?2 owner, ?3 now
    const std::string select = "SELECT id FROM attempts WHERE run_id = ?1 AND status IN " +
                               sqlActiveAttemptStatuses() + " AND (" + condition + ")";
    Transaction tx(m_conn);
    for (const char* table : {"evaluations", "candidates", "turns", "findings"}) {
        Statement del(m_conn, std::string("DELETE FROM ") + table + " WHERE attempt_id IN (" +
                                  select + ")");
        del.bind(1, runId).bind(2, owner).bind(3, now).exec();
    }
    Statement q(m_conn, "UPDATE attempts SET status = " + sqlLiteral(AttemptStatus::Queued) +
                            ", verdict = 'pending', message = '', "
                            "started_at = NULL, lease_owner = NULL, lease_expires_at = NULL, "
                            "next_try_at = NULL WHERE id IN (" +
                            select + ")");
    q.bind(1, runId).bind(2, owner).bind(3, now).exec();
    const int n = m_conn.changes();
    tx.commit();
    return n;
}

int LeaseRepository::requeueExpired(Id runId, const std::string& owner, double now) {
    return requeueWhere(
        "(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < ?3 "
        "OR lease_owner NOT IN (SELECT owner FROM engines WHERE stopped_at IS NULL)) "
        "AND coalesce(lease_owner, '') <> ?2",
        runId, owner, now);
}

int LeaseRepository::requeueOwned(Id runId, const std::string& owner) {
    return requeueWhere("lease_owner = ?2 AND ?3 = ?3", runId, owner, 0.0);
}

std::vector<Id> LeaseRepository::runnableRuns(double now, double leaseSeconds) {
    Statement q(m_conn, "SELECT r.id FROM runs r WHERE r.status IN " +
                            sqlList({RunStatus::Created, RunStatus::Running}) +
                            " AND (r.status = " + sqlLiteral(RunStatus::Running) +
                            " OR EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.id "
                            "AND a.status IN " +
                            sqlPendingAttemptStatuses() +
                            ")) "
                            "AND NOT EXISTS (SELECT 1 FROM engines e WHERE e.run_id = r.id AND "
                            "e.stopped_at IS NULL "
                            "AND e.heartbeat_at > ?) ORDER BY r.priority DESC, r.id");
    q.bind(1, now - leaseSeconds);
    std::vector<Id> out;
    while (q.step())
        out.push_back(q.int64(0));
    return out;
}

} // namespace kb::db
