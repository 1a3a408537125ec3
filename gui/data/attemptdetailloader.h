#pragma once
// Loads everything stored about one attempt in the background; newest request wins.

#include "db/records.h"
#include "jobtracker.h"

#include <QObject>
#include <QString>
#include <memory>

namespace kb::gui {

using AttemptDetailPtr = std::shared_ptr<const db::AttemptDetail>;

struct AttemptDetailLoadResult {
    AttemptDetailPtr detail; // null on failure
    QString error;
};

// Reads one attempt's detail through a read-only connection of its own; never throws.
AttemptDetailLoadResult loadAttemptDetail(const QString& path, db::Id attemptId);

class AttemptDetailLoader : public QObject {
    Q_OBJECT
public:
    explicit AttemptDetailLoader(QObject* parent = nullptr);

    void load(const QString& path, db::Id attemptId);
    bool isLoading() const { return m_tracker.isRunning(); }

Q_SIGNALS:
    void loaded(const kb::gui::AttemptDetailPtr& detail);
    void failed(const QString& message);

private:
    JobTracker m_tracker{this};
};

} // namespace kb::gui

Q_DECLARE_METATYPE(kb::gui::AttemptDetailPtr)
