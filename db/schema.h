#pragma once
// The database schema as an ordered list of numbered migrations. A database records the versions
// it has applied; opening one newer than this program knows is refused (SchemaTooNewError).

#include "sqlite.h"

namespace kb::db {

// The newest schema version this program writes.
int currentSchemaVersion();

// The schema version stored in the database (0 for an empty one).
int storedSchemaVersion(Connection& conn);

// Applies every migration above the stored version, all in one exclusive transaction that
// reads the version again once it holds the lock (two processes upgrading at once do not race).
// Throws SchemaTooNewError when the database comes from a newer program.
void migrate(Connection& conn);

} // namespace kb::db
