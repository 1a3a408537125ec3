#pragma once
// Loads database snapshots in the background, one connection per load, newest request wins.

#include "jobtracker.h"
#include "snapshot.h"

#include <QObject>
#include <QString>

namespace kb::gui {

struct SnapshotLoadResult {
    SnapshotPtr snapshot; // null on failure
    QString error;        // readable, for the user
    bool missingFile = false;
};

// Opens the file read-only and reads a snapshot; never throws.
SnapshotLoadResult loadSnapshotFile(const QString& path);

class SnapshotLoader : public QObject {
    Q_OBJECT
public:
    explicit SnapshotLoader(QObject* parent = nullptr);

    // Starts loading; a load still running is superseded and its result dropped.
    void load(const QString& path);
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
