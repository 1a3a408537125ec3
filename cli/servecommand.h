#pragma once
// `kbstudio-cli serve`: a headless engine that works through the runs of a database.

#include <QStringList>

namespace kb::cli {

int serveCommand(const QStringList& args);

} // namespace kb::cli
