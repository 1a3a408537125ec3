#pragma once
// Creating a run (its settings, drawn seed and queued attempts) and the offline demo catalog.
// Throws Error with a readable message on a bad spec, db::Error on the database.

#include "db/database.h"
#include "db/records.h"
#include "db/sqlite.h"
#include "runtypes.h"

#include <QString>
#include <memory>

namespace kb::engine {

// Opens (creating or migrating) the database at dbPath. Throws Error with a readable message.
std::unique_ptr<db::Database> openRunDatabase(const QString& dbPath);
// Where an engine keeps the attempts' files of a database: <folder>/<name>.work.
QString workRootFor(const QString& dbPath);

// Registers the offline demo provider with its pseudo-models and imports the sample suite.
void installDemoCatalog(db::Connection& conn);
// Creates a run and its queued attempts. Throws Error on unknown suite/models.
db::Id createRunFromSpec(db::Connection& conn, const RunSpec& spec);

} // namespace kb::engine
