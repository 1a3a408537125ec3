// How the engine lets go of a run: finished or cancelled (stored as such), aborted (marked
// failed, in-flight work queued again), stopped (given back for any engine to resume), or cut
// short by a database that takes no writes (the lease stepped back so the run can be taken over).

#include "db/leaserepository.h"
#include "db/runrepository.h"
#include "run/attemptgenerator.h"
#include "run/runclaim.h"
#include "run/runcontrol.h"
#include "runengine.h"

namespace kb::engine {

void RunEngine::abortRun(const QString& message) {
    const db::Id runId = m_runId;
    if (runId == 0)
        return;
    Q_EMIT logLine(QStringLiteral("run %1 %2").arg(runId).arg(message));
    emitProgress();
    leaveRun(message);
    Q_EMIT runFinished(runId, statusName(db::RunStatus::Failed), message);
}

void RunEngine::leaveRun(const std::optional<QString>& failure) {
    const db::Id runId = m_runId;
    m_cancelling = true;
    killAll();
    try {
        const int requeued =
            giveBackRun(m_db->connection(), runId, ownerId().toStdString(),
                        failure ? std::optional(failure->toStdString()) : std::nullopt);
        if (!failure && requeued > 0)
            Q_EMIT logLine(QStringLiteral("run %1: %2 attempt(s) in flight queued again")
                               .arg(runId)
                               .arg(requeued));
    } catch (const db::Error& e) {
        Q_EMIT logLine((failure ? QStringLiteral("cannot record the end of run %1: %2")
                                : QStringLiteral("cannot release run %1: %2"))
                           .arg(runId)
                           .arg(QString::fromUtf8(e.what())));
    }
    m_runId = 0;
    m_paused = false;
    m_cancelling = false;
}

void RunEngine::cancel() {
    if (m_runId == 0)
        return;
    m_cancelling = true;
    killAll();
    try {
        cancelRun(m_db->connection(), m_runId);
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot cancel run %1").arg(m_runId), e);
        return;
    }
    finishRun(db::RunStatus::Cancelled, QStringLiteral("cancelled by the user"));
}

void RunEngine::finishRun(db::RunStatus status, QString message) {
    const db::Id runId = m_runId;
    if (runId == 0)
        return;
    emitProgress();
    killAll();
    QString reported = statusName(status);
    try {
        db::RunRepository(m_db->connection())
            .setRunStatus(runId, db::toString(status), message.toStdString());
        db::LeaseRepository(m_db->connection()).releaseRun(ownerId().toStdString());
    } catch (const db::Error& e) {
        Q_EMIT logLine(QStringLiteral("cannot record the end of run %1: %2")
                           .arg(runId)
                           .arg(QString::fromUtf8(e.what())));
        message += QStringLiteral(
            ". The run stopped; what was stored is intact, and it resumes from there once the "
            "database can be written again");
        // A run the database would not call finished is not reported finished either. "stopped"
        // is no stored state: it tells the listener that the run ended here without one.
        if (status == db::RunStatus::Finished)
            reported = QStringLiteral("stopped");
        // The database takes no writes: step back so the run can be taken over at once.
        m_lease->stepBack();
    }
    m_runId = 0;
    m_paused = false;
    Q_EMIT runFinished(runId, reported, message);
}

void RunEngine::stop() {
    if (m_runId != 0)
        leaveRun(std::nullopt);
}

void RunEngine::shutdownScheduling() {
    stop();
    m_lease->stepBack();
}

void RunEngine::failOnDatabase(const QString& what, const std::exception& e) {
    const QString message =
        QStringLiteral("%1: %2. The run stopped; what was stored is intact, and it resumes "
                       "from there once the database can be written again")
            .arg(what, QString::fromUtf8(e.what()));
    Q_EMIT logLine(message);
    const db::Id runId = m_runId;
    m_cancelling = true;
    killAll();
    m_runId = 0;
    m_paused = false;
    // Step back, so another engine (or this one later) can take the run over at once.
    m_lease->stepBack();
    if (runId != 0)
        Q_EMIT runFinished(runId, statusName(db::RunStatus::Failed), message);
}

} // namespace kb::engine
