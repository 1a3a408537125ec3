#pragma once
// Pause, resume, cancel and prioritise a run through the database: the protocol every engine
// follows (runs.status 'paused' / 'running'; cancel marks the unfinished attempts and the run
// cancelled, together), so the GUI, `kbstudio-cli pause|resume|cancel|priority` and an engine
// in this process have the same effect. The engine working on the run notices on its next
// heartbeat. Throws db::Error.

#include "db/records.h"
#include "db/sqlite.h"

#include <set>
#include <string>
#include <vector>

namespace kb::engine {

inline constexpr const char* kCancelledByUser = "cancelled by the user";

// finished, failed or cancelled: nothing can change it any more.
bool isEndedRunStatus(const std::string& status);

void pauseRun(db::Connection& conn, db::Id runId);
void resumeRun(db::Connection& conn, db::Id runId);
// Cancels the run's unfinished attempts and the run itself in one transaction; returns how many
// attempts it cancelled.
int cancelRun(db::Connection& conn, db::Id runId);
// Cancels the unfinished attempts of one model, one task, or one model's attempts at one task;
// the run goes on. Returns how many it cancelled.
int cancelRunAttempts(db::Connection& conn, db::Id runId, const std::string& model,
                      const std::string& task);
// "model M", "task T" or "model M, task T": what cancelRunAttempts names in its message.
std::string attemptSelectionText(const std::string& model, const std::string& task);

// Those of `attemptIds` that were cancelled (an engine drops them from its hands).
std::set<db::Id> cancelledAmong(db::Connection& conn, const std::vector<db::Id>& attemptIds);

// Higher runs first. Of the whole run, or of one model's or task's attempts (returns how many).
void setRunPriority(db::Connection& conn, db::Id runId, int priority);
int setAttemptPriority(db::Connection& conn, db::Id runId, int priority, const std::string& model,
                       const std::string& task);

} // namespace kb::engine
