// The engine's reaction to run control: pause, resume and cancellations are written through
// run/runcontrol, and every heartbeat reads them back, so a change made by another process
// (kbstudio-cli, the GUI) takes effect here as well.

#include "core/error.h"
#include "db/queuerepository.h"
#include "run/attemptjob.h"
#include "run/runcontrol.h"
#include "runengine.h"

#include <QTimer>
#include <set>

namespace kb::engine {

void RunEngine::onLeaseRenewed() {
    if (m_runId == 0)
        return;
    try {
        pollControl();
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot renew the engine's lease"), e);
    }
}

void RunEngine::onLeaseRenewFailed(const QString& error) {
    if (m_runId != 0)
        failOnDatabase(QStringLiteral("cannot renew the engine's lease"),
                       db::Error(error.toStdString()));
    else
        Q_EMIT logLine(QStringLiteral("cannot renew the engine's heartbeat: %1").arg(error));
}

void RunEngine::pollControl() {
    if (m_runId == 0)
        return;
    auto& conn = m_db->connection();
    db::QueueRepository queue(conn);
    const db::RunStatus status = db::runStatusFromString(queue.runStatus(m_runId));
    if (status == db::RunStatus::Cancelled) {
        m_cancelling = true;
        killAll();
        cancelRun(conn, m_runId);
        finishRun(db::RunStatus::Cancelled, QStringLiteral("cancelled by the user"));
        return;
    }
    bool changed = false;
    if (status == db::RunStatus::Paused && !m_paused) {
        m_paused = true;
        m_pausedSignalled = false;
        Q_EMIT logLine(
            QStringLiteral("run %1 paused: the attempts in flight finish, nothing new starts")
                .arg(m_runId));
        changed = true;
    } else if (status != db::RunStatus::Paused && m_paused) {
        m_paused = false;
        Q_EMIT logLine(QStringLiteral("run %1 resumed").arg(m_runId));
        changed = true;
    }
    // Attempts cancelled one by one (a model, a task): stop what is in flight for them.
    std::vector<db::Id> ids;
    for (const auto& job : std::as_const(m_inFlight))
        ids.push_back(job->attempt.id);
    const std::set<db::Id> cancelled = cancelledAmong(conn, ids);
    const auto inFlight = m_inFlight;
    for (const auto& job : inFlight) {
        if (cancelled.count(job->attempt.id) > 0) {
            dropJob(job);
            changed = true;
        }
    }
    if (changed) {
        emitProgress();
        QTimer::singleShot(0, this, &RunEngine::pump);
    }
}

bool RunEngine::applyControl(const QString& failure, const std::function<void()>& change) {
    if (m_runId == 0)
        return false;
    try {
        change();
        pollControl();
        return true;
    } catch (const db::Error& e) {
        failOnDatabase(failure, e);
        return false;
    }
}

void RunEngine::pause() {
    applyControl(QStringLiteral("cannot pause run %1").arg(m_runId),
                 [this] { pauseRun(m_db->connection(), m_runId); });
}

void RunEngine::resume() {
    applyControl(QStringLiteral("cannot resume run %1").arg(m_runId),
                 [this] { resumeRun(m_db->connection(), m_runId); });
}

int RunEngine::cancelModel(const QString& model) {
    int n = 0;
    const bool ok = applyControl(QStringLiteral("cannot cancel model %1").arg(model), [&] {
        n = cancelRunAttempts(m_db->connection(), m_runId, model.toStdString(), {});
    });
    return ok ? n : 0;
}

int RunEngine::cancelTask(const QString& taskKey) {
    int n = 0;
    const bool ok = applyControl(QStringLiteral("cannot cancel task %1").arg(taskKey), [&] {
        n = cancelRunAttempts(m_db->connection(), m_runId, {}, taskKey.toStdString());
    });
    return ok ? n : 0;
}

} // namespace kb::engine
