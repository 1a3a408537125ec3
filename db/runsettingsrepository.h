#pragma once
// A run's settings document (runs.settings_json) after the run was created: sections that the
// program creating the run adds beside what the engine stored (e.g. the GUI launcher's choices).

#include "records.h"
#include "sqlite.h"

#include <string>

namespace kb::db {

class RunSettingsRepository {
public:
    explicit RunSettingsRepository(Connection& conn)
        : m_conn(conn) {}

    // Stores a JSON document under a top-level key of the run's settings, replacing what the key
    // held and keeping every other key. Throws Error when the run does not exist or the
    // document is not JSON (nothing changed then).
    void setSection(Id runId, const std::string& key, const std::string& json);
    // The run's settings document; empty when there is no such run.
    std::string settings(Id runId);

private:
    Connection& m_conn;
};

} // namespace kb::db
