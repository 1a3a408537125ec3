#pragma once
// An immutable picture of one database, taken off the GUI thread and shared by every page.

#include "db/records.h"
#include "db/sqlite.h"
#include "metrics/leaderboard.h"

#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb::gui {

// One run with the counts the runs table shows.
struct RunSummary {
    db::RunRow run;
    int attempts = 0;
    int queued = 0;      // not finished yet (queued or in flight)
    int finished = 0;    // done, failed or cancelled
    int correct = 0;     // verdict correct (suspicious ones included)
    int suspicious = 0;  // flagged suspicious and not reviewed
    int rejected = 0;    // rejected by a check or by a person
    std::map<std::string, int> statusCounts;
};

struct Snapshot {
    QString databasePath;
    int schemaVersion = 0;
    std::vector<RunSummary> runs;          // by run id, ascending
    std::vector<db::AttemptRow> attempts;  // every attempt of every run
    std::map<db::Id, metrics::Leaderboard> leaderboards; // per run id; 0 = all runs together
    // Validation flags of the reference, per task key: "cuda: output_below_tolerance", ...
    std::map<std::string, QStringList> taskFlags;
    // attempts.cost_usd per attempt id, only where a price was known.
    std::map<db::Id, double> attemptCostUsd;

    bool hasRuns() const { return !runs.empty(); }
    const RunSummary* findRun(db::Id runId) const;
    // The attempts of one run (all of them when runId is 0).
    std::vector<const db::AttemptRow*> attemptsOf(db::Id runId) const;
    const db::AttemptRow* findAttempt(db::Id attemptId) const;
    // The leaderboard of a run (0 = all runs); nullptr when the run is unknown.
    const metrics::Leaderboard* leaderboard(db::Id runId) const;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

// Reads a whole snapshot through an open connection. Throws db::Error on failure.
Snapshot readSnapshot(db::Connection& conn);

} // namespace kb::gui
