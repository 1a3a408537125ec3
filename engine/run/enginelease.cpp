#include "enginelease.h"

#include "db/leaserepository.h"
#include "scheduler/enginepresence.h"

#include <QCoreApplication>
#include <algorithm>

namespace kb::engine {

EngineLease::EngineLease(db::Connection& conn, QObject* parent)
    : QObject(parent)
    , m_conn(conn) {
    connect(&m_timer, &QTimer::timeout, this, &EngineLease::beat);
}

void EngineLease::setTiming(int heartbeatMs, double leaseSeconds) {
    m_heartbeatMs = std::max(10, heartbeatMs);
    m_leaseSeconds = leaseSeconds;
    if (m_timer.isActive())
        m_timer.start(m_heartbeatMs);
}

void EngineLease::ensureRegistered() {
    if (m_registered)
        return;
    m_owner = newEngineOwnerId();
    db::EngineRow e;
    e.owner = m_owner.toStdString();
    e.host = engineHostName().toStdString();
    e.pid = QCoreApplication::applicationPid();
    e.kind = m_kind.toStdString();
    e.startedAt = e.heartbeatAt = db::LeaseRepository::now();
    db::LeaseRepository(m_conn).registerEngine(e);
    markEngineAlive(m_owner);
    m_registered = true;
    m_timer.start(m_heartbeatMs);
}

void EngineLease::beat() {
    if (!m_registered)
        return;
    try {
        db::LeaseRepository(m_conn).heartbeat(m_owner.toStdString(), db::LeaseRepository::now(),
                                              m_leaseSeconds);
    } catch (const db::Error& e) {
        Q_EMIT renewFailed(QString::fromUtf8(e.what()));
        return;
    }
    Q_EMIT renewed();
}

void EngineLease::stepBack() {
    m_timer.stop();
    if (!m_registered)
        return;
    try {
        db::LeaseRepository(m_conn).stopEngine(m_owner.toStdString(), db::LeaseRepository::now());
    } catch (const db::Error&) {
        // The engine is known dead anyway once this process is gone, or its lease expires.
    }
    markEngineGone(m_owner);
    m_registered = false;
}

} // namespace kb::engine
