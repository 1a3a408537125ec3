#pragma once

#include "suite.h"

#include "db/records.h"

namespace kb::db {
class Connection;
}

namespace kb::engine {

struct ImportedSuite {
    db::Id suiteId = 0;
    int tasks = 0;
};

// Stores a suite and all its tasks in one transaction (re-importing updates in place).
ImportedSuite importSuite(db::Connection& conn, const SuiteDefinition& suite);

} // namespace kb::engine
