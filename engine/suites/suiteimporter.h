#pragma once

#include "db/records.h"
#include "suite.h"

#include <QString>

namespace kb::db {
class Connection;
}

namespace kb::engine {

struct ImportedSuite {
    db::Id suiteId = 0;
    QString name; // as stored: a built-in suite whose name a user's suite has is "builtin:NAME"
    int tasks = 0;
    int added = 0;
    int updated = 0;   // changed in place: no run had used them
    int versioned = 0; // changed after a run used them: new versions, the evaluated ones kept
};

// Stores a suite and all its tasks in one transaction. Re-importing never rewrites a task a run
// has used (a changed task gets a new version); a built-in suite never replaces a user's suite
// and a user's suite never replaces a built-in one. Throws db::Error, storing nothing, when the
// suite cannot be stored (duplicate task ids, a reserved name).
ImportedSuite importSuite(db::Connection& conn, const SuiteDefinition& suite);

} // namespace kb::engine
