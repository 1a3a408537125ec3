#include "infrafaults.h"

#include <QDir>
#include <QFileInfo>
#include <csignal>
#include <sys/statvfs.h>

namespace kb::engine {

bool mentionsDiskFull(const QString& text) {
    return text.contains(QLatin1String("No space left on device"), Qt::CaseInsensitive) ||
           text.contains(QLatin1String("ENOSPC")) ||
           text.contains(QLatin1String("Disk quota exceeded"), Qt::CaseInsensitive) ||
           text.contains(QLatin1String("EDQUOT")) ||
           text.contains(QLatin1String("database or disk is full"));
}

qint64 freeBytesAt(const QString& path) {
    QString p = QFileInfo(path).absoluteFilePath();
    while (!p.isEmpty() && !QFileInfo::exists(p))
        p = QFileInfo(p).absolutePath() == p ? QString() : QFileInfo(p).absolutePath();
    if (p.isEmpty())
        return -1;
    struct statvfs s {};
    if (::statvfs(QFile::encodeName(p).constData(), &s) != 0)
        return -1;
    return static_cast<qint64>(s.f_bavail) * static_cast<qint64>(s.f_frsize);
}

bool isDiskFullFailure(const QString& message, const QString& dir, qint64 freeBytes) {
    if (!mentionsDiskFull(message))
        return false;
    const qint64 free = freeBytes >= 0 ? freeBytes : freeBytesAt(dir);
    return free >= 0 && free < kDiskFullBytes;
}

bool harnessReportsInfrastructure(int exitCode, const QString& errorKind) {
    return exitCode == kHarnessInfrastructureExit || errorKind == QLatin1String("infrastructure");
}

bool isExternalStopSignal(int signal) {
    return signal == SIGKILL || signal == SIGTERM || signal == SIGINT || signal == SIGHUP ||
           signal == SIGQUIT;
}

} // namespace kb::engine
