#pragma once
// The end of `kbstudio-cli run`: the attempts that say nothing of the model (provider and
// infrastructure errors) counted apart from the scores, and the exit status that goes with it.

#include "db/sqlite.h"

#include <QString>

namespace kb::cli {

// Exit statuses of run (also in --help): 0 finished, every attempt evaluated; 1 failed or
// stopped early; 2 usage; 3 finished, but some attempts met provider or infrastructure errors
// (resume to retry them); 128+N stopped by signal N.
inline constexpr int kExitOperationalErrors = 3;

// Lines saying how many attempts met provider / infrastructure errors (empty when none) and
// how to retry them; sets *exitCode to kExitOperationalErrors when there were some.
QString operationalSummary(db::Connection& conn, qint64 runId, const QString& dbPath,
                           int* exitCode);

} // namespace kb::cli
