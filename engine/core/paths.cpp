#include "paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#ifndef KBSTUDIO_SOURCE_RESOURCES
#define KBSTUDIO_SOURCE_RESOURCES ""
#endif

namespace kb::engine {

QString resourcesDir() {
    const QString env = qEnvironmentVariable("KBSTUDIO_RESOURCES");
    if (!env.isEmpty())
        return QDir(env).absolutePath();
    if (QCoreApplication::instance()) {
        const QString installed =
            QCoreApplication::applicationDirPath() + QStringLiteral("/../share/kbstudio/resources");
        if (QFileInfo::exists(installed + QStringLiteral("/harness")))
            return QDir(installed).absolutePath();
    }
    return QString::fromUtf8(KBSTUDIO_SOURCE_RESOURCES);
}

QString harnessDir() {
    return resourcesDir() + QStringLiteral("/harness");
}

QString sampleSuiteDir() {
    return resourcesDir() + QStringLiteral("/suites/sample");
}

QString demoDir() {
    return resourcesDir() + QStringLiteral("/demo");
}

QString pythonExecutable() {
    const QString env = qEnvironmentVariable("KBSTUDIO_PYTHON");
    if (!env.isEmpty())
        return env;
    if (QFileInfo::exists(QStringLiteral("/usr/bin/python3")))
        return QStringLiteral("/usr/bin/python3");
    return QStringLiteral("python3");
}

QString dataDir() {
    const QString env = qEnvironmentVariable("KBSTUDIO_DATA_DIR");
    QString dir = env.isEmpty()
                      ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                            QStringLiteral("/kbstudio")
                      : env;
    QDir().mkpath(dir);
    return dir;
}

QString defaultDatabasePath() {
    return dataDir() + QStringLiteral("/demo.kbdb");
}

} // namespace kb::engine
