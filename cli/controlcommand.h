#pragma once
// `kbstudio-cli pause|resume|cancel|priority --run N [--model M] [--task T]`: controls a run
// through the database, whichever process (serve, run, the GUI) is working on it.

#include <QStringList>

namespace kb::cli {

// command: pause, resume, cancel or priority.
int controlCommand(const QString& command, const QStringList& args);

} // namespace kb::cli
