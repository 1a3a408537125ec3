#pragma once
// Value types the run engine emits and takes.

#include "db/records.h"
#include "eval/evalsettings.h"
#include "generation/generationsettings.h"

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <string>

namespace kb::engine {

// The stored name of a run state, as the engine's signals (runFinished) carry it.
inline QString statusName(db::RunStatus status) {
    return QString::fromLatin1(db::toString(status));
}

struct RunSpec {
    QString name;
    QString suite;      // suite name in the database
    QStringList models; // model names
    QStringList tasks;  // task keys; empty = all tasks of the suite
    QList<int> levels;  // empty = all levels
    int samples = 1;
    QString mode = QStringLiteral("one-shot");
    EvalSettings settings;
    // How models are asked: turns (multi-turn), agent budget, skill (see GenerationSettings).
    GenerationSettings generation;
};

struct RunProgress {
    db::Id runId = 0;
    int total = 0;
    int queued = 0;
    int generating = 0;
    int building = 0;
    int evaluating = 0;
    int done = 0;
    int failed = 0;
    int cancelled = 0;
    double elapsedSeconds = 0;
    std::optional<double> etaSeconds;
    // Scheduling: paused, where evaluations run, how busy the evaluation slots are.
    bool paused = false;
    QString backend = QStringLiteral("local");
    int evalSlots = 0; // GPUs (one slot on the CPU; Slurm: jobs submitted at once)
    int evalSlotsBusy = 0;
    double evalPoolBusy = 0;      // busy fraction of the slots since the first evaluation began
    double attemptsPerMinute = 0; // finished by this engine since it started on the run
    int finished() const { return done + failed + cancelled; }
    // The per-status counts and the total, from attempt counts by status (statusCounts()).
    void setStatusCounts(const std::map<std::string, int>& counts);
    // Elapsed time, and the pace and ETA from the attempts this engine finished in it.
    void setPace(double elapsed, int finishedThisSession);
};

struct AttemptResult {
    db::Id runId = 0;
    db::Id attemptId = 0;
    QString model;
    QString task;
    QString verdict;
    QString message;
    bool suspicious = false;
    std::optional<double> speedupEager;
};

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::RunProgress)
Q_DECLARE_METATYPE(kb::engine::AttemptResult)
