#pragma once
// An immutable picture of one database, taken off the GUI thread and shared by every page.
//
// The run summaries come from aggregate reads and are always complete; attempt rows and
// leaderboards are read per scope (one run, or every run), because a database of a million
// attempts does not fit a snapshot that a window reloads after every review. Small databases
// are read whole: then every scope is present at once.

#include "db/records.h"
#include "db/sqlite.h"
#include "metrics/leaderboard.h"
#include "resultsgrid.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::gui {

// One run with the counts the runs table shows.
struct RunSummary {
    db::RunRow run;
    int attempts = 0;
    int queued = 0;     // not finished yet (queued or in flight)
    int finished = 0;   // done, failed or cancelled
    int correct = 0;    // verdict correct (suspicious ones included)
    int suspicious = 0; // flagged suspicious and not reviewed
    int rejected = 0;   // rejected by a check or by a person
    std::map<std::string, int> statusCounts;
    std::vector<std::string> models; // models with attempts in the run, sorted
    // Changes whenever an attempt of the run changes in a way any page shows (status, verdict,
    // review, speedup, cost): the key under which its attempts are cached.
    std::string version;
};

// The attempts, leaderboards and costs of one scope.
struct ScopeData {
    db::Id runId = 0;      // 0 = every run
    bool everyRun = false; // every run's attempts and every run's leaderboard (a whole read)
    std::string version;   // the version of the scope when it was read
    std::vector<db::AttemptRow> attempts;
    std::map<db::Id, metrics::Leaderboard> leaderboards; // per run id; 0 = all runs together
    // attempts.cost_usd per attempt id, only where a price was known.
    std::map<db::Id, double> attemptCostUsd;
    // The results grid of the scope's attempts, built with them (not for whole reads).
    std::shared_ptr<const ResultsGrid> grid;
};

using ScopeDataPtr = std::shared_ptr<const ScopeData>;

struct Snapshot {
    QString databasePath;
    int schemaVersion = 0;
    std::vector<RunSummary> runs; // by run id, ascending
    // Validation flags of the reference, per task key: "cuda: output_below_tolerance", ...
    std::map<std::string, QStringList> taskFlags;
    ScopeDataPtr scope; // the attempts read so far; null when only the summaries are

    bool hasRuns() const { return !runs.empty(); }
    const RunSummary* findRun(db::Id runId) const;
    std::int64_t attemptCount(db::Id runId = 0) const; // from the summaries
    // The version of a scope (0 = every run); empty for an unknown run.
    std::string scopeVersion(db::Id runId) const;
    // Whether the attempts and the leaderboard of runId (0 = every run) are in this snapshot.
    bool hasScope(db::Id runId) const;
    // The models of a run (every run when 0), from the summaries, sorted.
    QStringList modelNames(db::Id runId) const;

    // The attempts of one run (all of them when runId is 0), as far as they were read.
    std::vector<const db::AttemptRow*> attemptsOf(db::Id runId) const;
    const db::AttemptRow* findAttempt(db::Id attemptId) const;
    // The leaderboard of a run (0 = all runs); nullptr when the run is unknown or not read.
    const metrics::Leaderboard* leaderboard(db::Id runId) const;
    std::optional<double> costUsd(db::Id attemptId) const;

    // The same summaries with other attempts.
    Snapshot withScope(ScopeDataPtr data) const;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

// The run summaries and task flags, without attempts. Throws db::Error on failure.
Snapshot readSummaries(db::Connection& conn);
// The attempts, leaderboard and costs of one scope (0 = every run). version: from the summaries.
ScopeDataPtr readScope(db::Connection& conn, db::Id runId, std::string version);
// Everything: every run's attempts and every leaderboard, for small databases.
ScopeDataPtr readEveryScope(db::Connection& conn, std::string version);
// Summaries plus everything. Throws db::Error on failure.
Snapshot readSnapshot(db::Connection& conn);

} // namespace kb::gui
