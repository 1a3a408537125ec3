#pragma once
// An engine taking a run up (first start or resume): the run's lease, its settings and backend,
// and the attempts interrupted or failed by the machinery queued again.

#include "db/records.h"
#include "db/sqlite.h"
#include "eval/evalsettings.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <string>
#include <vector>

namespace kb::engine {

struct RunClaim {
    EvalSettings settings;
    QString backend;             // local or slurm
    int requeuedInterrupted = 0; // in flight when their engine stopped
    int requeuedOperational = 0; // met a provider or infrastructure error
    std::vector<db::Id> queued;  // in the order they are to be worked on
    // What was queued again, for the log.
    QStringList resumeNotes(db::Id runId) const;
};

class EngineLease;

// Claims run `runId` for the engine of `lease` (registering it first) and marks it running.
// Throws Error when there is no such run, another live engine holds it, or it asks for an
// unknown backend (the claim is released then); db::Error on the database.
RunClaim claimRun(db::Connection& conn, db::Id runId, EngineLease& lease);

// Gives the run back: the attempts in the hands of `owner` are queued again and its lease on the
// run released; with a failure the run is marked failed too (resuming continues it). Returns how
// many attempts were queued again. Throws db::Error.
int giveBackRun(db::Connection& conn, db::Id runId, const std::string& owner,
                const std::optional<std::string>& failure);

} // namespace kb::engine
