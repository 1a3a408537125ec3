#pragma once
// Loads database snapshots in the background, one connection per load, newest request wins.

#include "jobtracker.h"
#include "snapshot.h"

#include <QObject>
#include <QString>
#include <optional>

namespace kb::gui {

struct SnapshotLoadResult {
    SnapshotPtr snapshot; // null on failure
    QString error;        // readable, for the user
    bool missingFile = false;
};

// What a load reads beside the run summaries.
struct ScopeRequest {
    // Databases with at most this many attempts are read whole (every scope at once); larger
    // ones only in the scope asked for.
    std::int64_t wholeReadLimit = 0;
    // The scope to read: this run when the database still has it (0 = every run), else the
    // newest run.
    std::optional<db::Id> wanted;
    // Scopes read before, reused when their version is unchanged.
    std::vector<ScopeDataPtr> cached;
};

// Opens the file read-only and reads a snapshot; never throws. Without a request the whole
// database is read (every run's attempts and leaderboards).
SnapshotLoadResult loadSnapshotFile(const QString& path);
SnapshotLoadResult loadSnapshotFile(const QString& path, const ScopeRequest& request);

class SnapshotLoader : public QObject {
    Q_OBJECT
public:
    explicit SnapshotLoader(QObject* parent = nullptr);

    // Starts loading; a load still running is superseded and its result dropped.
    void load(const QString& path);
    void load(const QString& path, ScopeRequest request);
    bool isLoading() const { return m_tracker.isRunning(); }
    quint64 generation() const { return m_tracker.generation(); }

Q_SIGNALS:
    void loaded(const kb::gui::SnapshotPtr& snapshot);
    // missingFile: the file does not exist (as opposed to existing but unreadable).
    void failed(const QString& path, const QString& message, bool missingFile);

private:
    JobTracker m_tracker{this};
};

} // namespace kb::gui

Q_DECLARE_METATYPE(kb::gui::SnapshotPtr)
