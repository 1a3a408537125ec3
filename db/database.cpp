#include "database.h"

#include "schema.h"

#include <vector>

namespace kb::db {
namespace {

// The tables every database of the current schema has; one that is missing means the file was
// damaged or edited by hand, whatever its schema_version says.
constexpr const char* kRequiredTables[] = {
    "providers", "models", "suites", "tasks", "runs", "run_models", "attempts", "turns",
    "candidates", "builds", "evaluations", "correctness_trials", "timing_series",
    "timing_samples", "baselines", "findings", "engines", "task_summaries", "schema_version"};

// quick_check reads every page (O(size), no index cross-check): it finds a file cut short or
// overwritten before anything is written on top of it.
void checkPages(Connection& conn)
{
    std::vector<std::string> findings;
    try {
        Statement q(conn, "PRAGMA quick_check(10)");
        while (q.step())
            findings.push_back(q.text(0));
    } catch (const Error& e) {
        throw DamagedDatabaseError(damagedDatabaseMessage(conn.path(), e.what()));
    }
    if (findings.size() == 1 && findings.front() == "ok")
        return;
    std::string finding = "PRAGMA quick_check: ";
    for (size_t i = 0; i < findings.size(); ++i)
        finding += (i ? "; " : "") + findings[i];
    throw DamagedDatabaseError(damagedDatabaseMessage(conn.path(), finding));
}

void checkTables(Connection& conn)
{
    Statement q(conn, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
    for (const char* table : kRequiredTables) {
        q.bind(1, table);
        q.step();
        const bool present = q.int64(0) == 1;
        q.reset();
        if (!present) {
            throw DamagedDatabaseError(damagedDatabaseMessage(
                conn.path(), "schema version " + std::to_string(storedSchemaVersion(conn))
                                 + " but no table '" + table + "'"));
        }
    }
}

} // namespace

Database::Database(const std::string& path, Access access)
{
    m_conn = std::make_unique<Connection>(path, access == Access::ReadOnly
                                                    ? Connection::Mode::ReadOnly
                                                    : Connection::Mode::ReadWrite);
    if (access == Access::ReadWrite) {
        checkPages(*m_conn);
        migrate(*m_conn);
        checkTables(*m_conn);
    } else if (storedSchemaVersion(*m_conn) > currentSchemaVersion()) {
        throw SchemaTooNewError("database '" + path + "' has schema version "
                                + std::to_string(storedSchemaVersion(*m_conn))
                                + ", newer than this program's "
                                + std::to_string(currentSchemaVersion()));
    }
}

int Database::schemaVersion()
{
    return storedSchemaVersion(*m_conn);
}

} // namespace kb::db
