#include "runclaim.h"

#include "core/error.h"
#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "enginelease.h"
#include "faults.h"
#include "scheduler/enginepresence.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

QStringList RunClaim::resumeNotes(db::Id runId) const {
    QStringList notes;
    if (requeuedInterrupted > 0)
        notes << QStringLiteral("resuming run %1: %2 interrupted attempt(s) queued again")
                     .arg(runId)
                     .arg(requeuedInterrupted);
    if (requeuedOperational > 0)
        notes << QStringLiteral("resuming run %1: %2 attempt(s) that met a provider or "
                                "infrastructure error queued again")
                     .arg(runId)
                     .arg(requeuedOperational);
    return notes;
}

RunClaim claimRun(db::Connection& conn, db::Id runId, EngineLease& lease) {
    db::RunRepository runs(conn);
    db::QueueRepository queue(conn);
    db::LeaseRepository leases(conn);
    const auto run = runs.run(runId);
    if (!run)
        throw Error(QStringLiteral("no run with id %1").arg(runId));
    lease.ensureRegistered();
    const std::string owner = lease.owner().toStdString();
    const double leaseSeconds = lease.leaseSeconds();
    reapDeadEngines(leases);
    const double now = db::LeaseRepository::now();
    if (const auto holder = leases.claimRun(runId, owner, now, leaseSeconds)) {
        throw Error(
            QStringLiteral(
                "run %1 is being worked on by another engine (%2, %3 pid %4, last heartbeat "
                "%5 s ago); pause or cancel it there, or wait until its lease expires")
                .arg(runId)
                .arg(QString::fromStdString(holder->kind), QString::fromStdString(holder->host))
                .arg(holder->pid)
                .arg(now - holder->heartbeatAt, 0, 'f', 0));
    }
    RunClaim claim;
    claim.settings = EvalSettings::fromJson(
        QJsonDocument::fromJson(QByteArray::fromStdString(run->settingsJson)).object());
    if (claim.settings.backend != QLatin1String("local"))
        queue.setRunBackend(runId, claim.settings.backend.toStdString());
    claim.backend = QString::fromStdString(queue.runBackend(runId));
    if (claim.backend != QLatin1String("local") && claim.backend != QLatin1String("slurm")) {
        leases.releaseRun(owner);
        throw Error(QStringLiteral("run %1 asks for the unknown backend '%2' (local or slurm)")
                        .arg(runId)
                        .arg(claim.backend));
    }
    claim.requeuedInterrupted = leases.requeueExpired(runId, owner, now);
    claim.requeuedOperational = requeueOperationalFailures(conn, runId);
    runs.setRunStatus(runId, db::toString(db::RunStatus::Running));
    claim.queued = queue.queuedAttempts(runId);
    return claim;
}

int giveBackRun(db::Connection& conn, db::Id runId, const std::string& owner,
                const std::optional<std::string>& failure) {
    db::LeaseRepository leases(conn);
    const int requeued = leases.requeueOwned(runId, owner);
    if (failure)
        db::RunRepository(conn).setRunStatus(runId, db::toString(db::RunStatus::Failed), *failure);
    leases.releaseRun(owner);
    return requeued;
}

} // namespace kb::engine
