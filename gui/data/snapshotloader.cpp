#include "snapshotloader.h"

#include "db/database.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::SnapshotLoader", text);
}

} // namespace

namespace {

// The scope a request asks for, given what the database holds.
db::Id chooseScope(const Snapshot& s, const ScopeRequest& request) {
    if (request.wanted && (*request.wanted == 0 || s.findRun(*request.wanted)))
        return *request.wanted;
    return s.runs.empty() ? 0 : s.runs.back().run.id;
}

Snapshot readRequested(db::Connection& conn, const std::optional<ScopeRequest>& request) {
    Snapshot s = readSummaries(conn);
    if (!request || s.attemptCount() <= request->wholeReadLimit) {
        s.scope = readEveryScope(conn, s.scopeVersion(0));
        return s;
    }
    const db::Id scope = chooseScope(s, *request);
    const std::string version = s.scopeVersion(scope);
    for (const auto& cached : request->cached) {
        if (cached && !cached->everyRun && cached->runId == scope && cached->version == version) {
            s.scope = cached;
            return s;
        }
    }
    s.scope = readScope(conn, scope, version);
    return s;
}

SnapshotLoadResult loadRequested(const QString& path, const std::optional<ScopeRequest>& request) {
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
        result.error =
            tr("%1 is a folder, not a database file.").arg(QDir::toNativeSeparators(path));
        return result;
    }
    try {
        db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
        Snapshot snapshot = readRequested(database.connection(), request);
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

} // namespace

SnapshotLoadResult loadSnapshotFile(const QString& path) {
    return loadRequested(path, std::nullopt);
}

SnapshotLoadResult loadSnapshotFile(const QString& path, const ScopeRequest& request) {
    return loadRequested(path, request);
}

SnapshotLoader::SnapshotLoader(QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<kb::gui::SnapshotPtr>();
}

void SnapshotLoader::load(const QString& path) {
    m_tracker.start([path]() { return loadSnapshotFile(path); },
                    [this, path](SnapshotLoadResult result) {
                        if (result.snapshot)
                            Q_EMIT loaded(result.snapshot);
                        else
                            Q_EMIT failed(path, result.error, result.missingFile);
                    });
}

void SnapshotLoader::load(const QString& path, ScopeRequest request) {
    m_tracker.start(
        [path, wanted = std::move(request)]() { return loadSnapshotFile(path, wanted); },
        [this, path](SnapshotLoadResult result) {
            if (result.snapshot)
                Q_EMIT loaded(result.snapshot);
            else
                Q_EMIT failed(path, result.error, result.missingFile);
        });
}

} // namespace kb::gui
