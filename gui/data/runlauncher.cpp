#include "runlauncher.h"

#include "core/error.h"
#include "db/database.h"
#include "db/runsettingsrepository.h"
#include "run/runengine.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::RunLauncher", text);
}

} // namespace

db::Id createRunFromSpec(const QString& databasePath, const engine::RunSpec& spec,
                         const QJsonObject& extra, QString* error) {
    try {
        db::Id runId = 0;
        {
            engine::RunEngine engine(databasePath);
            runId = engine.createRun(spec);
        }
        if (!extra.isEmpty()) {
            db::Database database(databasePath.toStdString());
            db::RunSettingsRepository(database.connection())
                .setSection(runId, "launcher",
                            QJsonDocument(extra).toJson(QJsonDocument::Compact).toStdString());
        }
        return runId;
    } catch (const engine::Error& e) {
        *error = e.message();
    } catch (const std::exception& e) {
        *error = tr("Could not create the run: %1").arg(QString::fromUtf8(e.what()));
    }
    return 0;
}

QString findCliProgram() {
    const QString dir = QCoreApplication::applicationDirPath();
    const QStringList candidates{dir + QStringLiteral("/kbstudio-cli"),
                                 dir + QStringLiteral("/../cli/kbstudio-cli")};
    for (const QString& candidate : candidates) {
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    }
    return QStandardPaths::findExecutable(QStringLiteral("kbstudio-cli"));
}

QStringList backgroundRunArguments(const QString& databasePath, db::Id runId) {
    return {QStringLiteral("run"),
            QStringLiteral("--db"),
            QFileInfo(databasePath).absoluteFilePath(),
            QStringLiteral("--resume"),
            QString::number(runId),
            QStringLiteral("--quiet")};
}

QString startRunInBackground(const QString& databasePath, db::Id runId, const QString& program) {
    if (program.isEmpty())
        return tr("kbstudio-cli was not found next to this program or on PATH; run it yourself: "
                  "kbstudio-cli run --db %1 --resume %2")
            .arg(QDir::toNativeSeparators(databasePath))
            .arg(runId);
    QProcess process;
    process.setProgram(program);
    process.setArguments(backgroundRunArguments(databasePath, runId));
    process.setWorkingDirectory(QFileInfo(databasePath).absolutePath());
    const QString log =
        QFileInfo(databasePath).absoluteDir().filePath(QStringLiteral("run-%1.log").arg(runId));
    process.setStandardOutputFile(log, QIODevice::Append);
    process.setStandardErrorFile(log, QIODevice::Append);
    qint64 pid = 0;
    if (!process.startDetached(&pid))
        return tr("Could not start %1: %2").arg(program, process.errorString());
    return {};
}

} // namespace kb::gui
