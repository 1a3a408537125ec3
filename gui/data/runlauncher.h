#pragma once
// Creating a run from the launcher and starting it in the background: `kbstudio-cli run
// --resume ID` as a detached process, so closing the window never stops the run. (Running it
// in this window uses the MainWindow's RunEngine instead.)

#include "db/records.h"
#include "run/runtypes.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace kb::gui {

// Creates the run and its queued attempts through a RunEngine on the database; `extra` is stored
// under "launcher" in the run's settings. Returns the run id, or 0 with *error set.
db::Id createRunFromSpec(const QString& databasePath, const engine::RunSpec& spec,
                         const QJsonObject& extra, QString* error);

// Where kbstudio-cli is: next to this program, in the build tree's cli folder, or on PATH.
QString findCliProgram();

// The command line that continues a run in the background.
QStringList backgroundRunArguments(const QString& databasePath, db::Id runId);

// Starts `kbstudio-cli run --db DB --resume ID --quiet` detached (its output goes to a log file
// next to the database). Returns an empty string or a readable error.
QString startRunInBackground(const QString& databasePath, db::Id runId,
                             const QString& program = findCliProgram());

} // namespace kb::gui
