#include "enginepresence.h"

#include <QCoreApplication>
#include <QMutex>
#include <QMutexLocker>
#include <QRandomGenerator>
#include <QSet>
#include <QSysInfo>
#include <cerrno>
#include <csignal>

namespace kb::engine {
namespace {
QMutex& registryMutex() {
    static QMutex m;
    return m;
}
QSet<QString>& registry() {
    static QSet<QString> s;
    return s;
}
} // namespace

QString newEngineOwnerId() {
    const quint64 a = QRandomGenerator::system()->generate64();
    const quint64 b = QRandomGenerator::system()->generate64();
    return QStringLiteral("%1%2").arg(a, 16, 16, QLatin1Char('0')).arg(b, 16, 16, QLatin1Char('0'));
}

QString engineHostName() {
    return QSysInfo::machineHostName();
}

void markEngineAlive(const QString& owner) {
    QMutexLocker lock(&registryMutex());
    registry().insert(owner);
}

void markEngineGone(const QString& owner) {
    QMutexLocker lock(&registryMutex());
    registry().remove(owner);
}

bool engineKnownDead(const db::EngineRow& e) {
    if (e.stoppedAt)
        return true;
    if (QString::fromStdString(e.host) != engineHostName() || e.pid <= 0)
        return false;
    if (e.pid == QCoreApplication::applicationPid()) {
        QMutexLocker lock(&registryMutex());
        return !registry().contains(QString::fromStdString(e.owner));
    }
    return ::kill(static_cast<pid_t>(e.pid), 0) != 0 && errno == ESRCH;
}

int reapDeadEngines(db::LeaseRepository& leases) {
    int n = 0;
    const double now = db::LeaseRepository::now();
    for (const auto& e : leases.engines()) {
        if (!e.stoppedAt && engineKnownDead(e)) {
            leases.stopEngine(e.owner, now);
            ++n;
        }
    }
    return n;
}

} // namespace kb::engine
