#pragma once
// Pause, resume and cancel a run through the database: the protocol every engine follows
// (runs.status 'paused' / 'running'; cancel marks the unfinished attempts and the run
// cancelled), so it works for a headless engine as for one in this window. An in-process
// RunEngine notices on its next heartbeat; the monitor also calls it directly (see MonitorPage).

#include "db/records.h"

#include <QString>

namespace kb::gui {

enum class RunAction { Pause, Resume, Cancel };

// Opens the database read-write for the duration of the change. Returns an empty string on
// success, else a readable error (e.g. the run has already finished).
QString controlRunInDatabase(const QString& databasePath, db::Id runId, RunAction action);

} // namespace kb::gui
