#pragma once
// What the attempt page shows beyond db::AttemptDetail: the candidate of every turn, the task's
// reference source, the build's errors (file:line) and the GPU state around the evaluation.
// Loaded off the GUI thread like the detail itself.

#include "db/records.h"
#include "jobtracker.h"
#include "monitorsnapshot.h"

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

namespace kb::gui {

struct BuildError {
    QString file;
    int line = 0;
    int column = 0;
    QString message;
};

struct AttemptExtras {
    db::Id attemptId = 0;
    std::vector<db::CandidateRow> candidates; // every turn's candidate, by turn
    QString referenceSource;
    std::vector<BuildError> buildErrors;
    std::vector<GpuSample> gpuSamples; // before / after the latest evaluation, per GPU
};

using AttemptExtrasPtr = std::shared_ptr<const AttemptExtras>;

// Build errors from a build's errors_json ([{"file","line","col","message"}]); when that is
// empty, "file:line:col: error: ..." and "file(line): error: ..." lines of the log.
std::vector<BuildError> parseBuildErrors(const std::string& errorsJson, const std::string& log);

// Reads through a read-only connection of its own; null with *error on failure.
AttemptExtrasPtr loadAttemptExtras(const QString& path, db::Id attemptId, QString* error = nullptr);

class AttemptExtrasLoader : public QObject {
    Q_OBJECT
public:
    explicit AttemptExtrasLoader(QObject* parent = nullptr);
    void load(const QString& path, db::Id attemptId);
    bool isLoading() const { return m_tracker.isRunning(); }

Q_SIGNALS:
    void loaded(const kb::gui::AttemptExtrasPtr& extras);

private:
    JobTracker m_tracker{this};
};

} // namespace kb::gui

Q_DECLARE_METATYPE(kb::gui::AttemptExtrasPtr)
