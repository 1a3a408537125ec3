#include "snapshotloader.h"

#include "db/database.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace kb::gui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("kb::gui::SnapshotLoader", text);
}

} // namespace

SnapshotLoadResult loadSnapshotFile(const QString& path)
{
    SnapshotLoadResult result;
    if (path.isEmpty()) {
        result.error = tr("No database file was given.");
        result.missingFile = true;
        return result;
    }
    const QFileInfo info(path);
    if (!info.exists()) {
        result.error = tr("The database %1 does not exist.").arg(QDir::toNativeSeparators(path));
        result.missingFile = true;
        return result;
    }
    if (info.isDir()) {
        result.error = tr("%1 is a folder, not a database file.").arg(QDir::toNativeSeparators(path));
        return result;
    }
    try {
        db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
        Snapshot snapshot = readSnapshot(database.connection());
        snapshot.databasePath = path;
        snapshot.schemaVersion = database.schemaVersion();
        result.snapshot = std::make_shared<const Snapshot>(std::move(snapshot));
    } catch (const db::SchemaTooNewError& e) {
        result.error = tr("This database was written by a newer version of KernelBench Studio "
                          "(%1). Update kbstudio to open it; it was left untouched.")
                           .arg(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        result.error = tr("Cannot read the database %1: %2")
                           .arg(QDir::toNativeSeparators(path), QString::fromStdString(e.what()));
    }
    return result;
}

SnapshotLoader::SnapshotLoader(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<kb::gui::SnapshotPtr>();
}

void SnapshotLoader::load(const QString& path)
{
    m_tracker.start([path]() { return loadSnapshotFile(path); },
                    [this, path](SnapshotLoadResult result) {
                        if (result.snapshot)
                            Q_EMIT loaded(result.snapshot);
                        else
                            Q_EMIT failed(path, result.error, result.missingFile);
                    });
}

} // namespace kb::gui
