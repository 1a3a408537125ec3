#pragma once
// An engine's presence in the database: it registers in the engines table, renews its heartbeat
// (and with it the leases of the work it has in hand) on a timer, and steps back when it stops
// or the database takes no more writes, so another engine can take its runs over at once.

#include "db/sqlite.h"

#include <QObject>
#include <QString>
#include <QTimer>

namespace kb::engine {

// Engines renew their heartbeat every kEngineHeartbeatMs; one not heard of for
// kEngineLeaseSeconds is gone, and its work can be taken over.
inline constexpr int kEngineHeartbeatMs = 2000;
inline constexpr double kEngineLeaseSeconds = 12;

class EngineLease : public QObject {
    Q_OBJECT
public:
    explicit EngineLease(db::Connection& conn, QObject* parent = nullptr);

    // Empty until registered; a new id at every registration.
    QString owner() const { return m_owner; }
    void setKind(const QString& kind) { m_kind = kind; }
    bool isRegistered() const { return m_registered; }
    void setTiming(int heartbeatMs, double leaseSeconds);
    double leaseSeconds() const { return m_leaseSeconds; }

    // Registers this engine (once) and starts the heartbeat. Throws db::Error.
    void ensureRegistered();
    // The heartbeat stops, the engine is recorded stopped where the database still takes the
    // write, and known gone in this process at once.
    void stepBack();

Q_SIGNALS:
    // After each heartbeat the database took.
    void renewed();
    // A heartbeat the database refused.
    void renewFailed(const QString& error);

private:
    void beat();

    db::Connection& m_conn;
    QString m_owner;
    QString m_kind = QStringLiteral("local");
    bool m_registered = false;
    QTimer m_timer;
    int m_heartbeatMs = kEngineHeartbeatMs;
    double m_leaseSeconds = kEngineLeaseSeconds;
};

} // namespace kb::engine
