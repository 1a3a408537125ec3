#pragma once
// What the run monitor shows of one run, read from the database: progress per state and per
// model, throughput, ETA, the latest GPU telemetry, the engine holding the run and the latest
// finished attempts. Polling the database works the same for an engine in this window and for
// a headless one (`kbstudio-cli run`, `serve`, Slurm).

#include "db/monitorrepository.h"
#include "db/records.h"
#include "db/sqlite.h"

#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::gui {

struct StateCounts {
    int queued = 0;
    int generating = 0;
    int building = 0;
    int evaluating = 0;
    int done = 0;
    int failed = 0;
    int cancelled = 0;
    int correct = 0;
    int total() const {
        return queued + generating + building + evaluating + done + failed + cancelled;
    }
    int finished() const { return done + failed + cancelled; }
    int active() const { return generating + building + evaluating; }
    void add(db::AttemptStatus status, const std::string& verdict, int count = 1);
};

// One NVML reading of a GPU, as stored with the evaluation it was taken around.
using GpuSample = db::GpuSampleRow;

// A finished attempt of the monitor's log (taskKey: the task's key).
using FinishedLine = db::FinishedAttemptRow;

struct EngineInfo {
    std::string kind; // local, serve, slurm
    std::string host;
    qint64 pid = 0;
    double heartbeatAgeSeconds = 0;
};

struct MonitorSnapshot {
    db::RunRow run;
    std::string backend;
    StateCounts counts;
    std::map<std::string, StateCounts> perModel;
    double attemptsPerMinute = 0; // over the last few minutes
    std::optional<double> etaSeconds;
    std::vector<GpuSample> gpus; // the latest sample of each GPU the run used
    std::optional<EngineInfo> engine;
    std::vector<FinishedLine> recent; // newest last

    bool isActive() const { return db::isLive(run.runStatus()); }
};

using MonitorSnapshotPtr = std::shared_ptr<const MonitorSnapshot>;

// Reads the monitor's view of a run; nullopt when there is no such run. windowSeconds: the
// span the throughput is measured over; recentLines: how many finished attempts to list.
std::optional<MonitorSnapshot> readMonitorSnapshot(db::Connection& conn, db::Id runId,
                                                   double windowSeconds = 300,
                                                   int recentLines = 200);

// "[12:03:04] demo-a l1_relu: correct 2.00x" (the monitor's log line of a finished attempt).
QString finishedLineText(const FinishedLine& line);

// "2 h 05 min", "4 min 10 s", "12 s".
QString durationText(double seconds);

} // namespace kb::gui
