#pragma once
// Engines and the leases they hold. An engine registers itself with a random owner id and
// heartbeats; the run it works on and every attempt it has in hand carry its lease. Work whose
// lease expired (or whose engine stopped) may be taken over; live work never is.
// Times are unix seconds (double), passed in so tests can move the clock.

#include "records.h"
#include "sqlite.h"

#include <optional>
#include <string>
#include <vector>

namespace kb::db {

struct EngineRow {
    Id id = 0;
    std::string owner;
    std::string host;
    std::int64_t pid = 0;
    std::string kind = "local"; // local (in the GUI or CLI), serve
    std::optional<Id> runId;
    double startedAt = 0;
    double heartbeatAt = 0;
    std::optional<double> stoppedAt;
};

class LeaseRepository {
public:
    explicit LeaseRepository(Connection& conn)
        : m_conn(conn) {}

    // The current unix time in seconds.
    static double now();

    void registerEngine(const EngineRow& engine);
    // Renews the engine's heartbeat and the leases of the attempts it has in hand.
    void heartbeat(const std::string& owner, double now, double leaseSeconds);
    // Marks the engine stopped and drops its claim on its run.
    void stopEngine(const std::string& owner, double now);
    std::vector<EngineRow> engines();
    std::optional<EngineRow> engine(const std::string& owner);

    // The live engine (heartbeat within leaseSeconds, not stopped) working on a run, if any.
    std::optional<EngineRow> holderOf(Id runId, double now, double leaseSeconds);
    // The engine not stopped with the newest heartbeat on a run, live or not (what a monitor
    // shows, with the heartbeat's age).
    std::optional<EngineRow> newestEngine(Id runId);
    // Claims a run for an engine unless another live engine holds it (returned then).
    // Atomic across processes (BEGIN IMMEDIATE).
    std::optional<EngineRow> claimRun(Id runId, const std::string& owner, double now,
                                      double leaseSeconds);
    void releaseRun(const std::string& owner);

    // Takes a queued attempt for the engine; false when it is no longer queued (cancelled, or
    // taken by someone else).
    bool acquireAttempt(Id attemptId, const std::string& owner, double now, double leaseSeconds);
    // Clears the lease of an attempt the engine no longer has in hand.
    void releaseAttempt(Id attemptId, const std::string& owner);

    // Puts attempts of the run that are half-way but whose lease expired, whose engine stopped or
    // that carry no lease back in the queue, and removes what they had produced, so nothing is
    // stored or counted twice. Attempts held by a live lease, or by `owner`, are left alone.
    int requeueExpired(Id runId, const std::string& owner, double now);
    // Puts the engine's own half-way attempts of the run back in the queue (a clean stop).
    int requeueOwned(Id runId, const std::string& owner);

    // Runs with work left (or left 'running' by an engine that died) that no live engine holds,
    // highest priority first.
    std::vector<Id> runnableRuns(double now, double leaseSeconds);

private:
    int requeueWhere(const std::string& condition, Id runId, const std::string& owner, double now);
    Connection& m_conn;
};

} // namespace kb::db
