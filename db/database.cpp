#include "database.h"

#include "schema.h"

#include <cstdint>
#include <sys/stat.h>
#include <vector>

namespace kb::db {
namespace {

// The tables every database of the current schema has; one that is missing means the file was
// damaged or edited by hand, whatever its schema_version says.
constexpr const char* kRequiredTables[] = {"providers",
                                           "models",
                                           "suites",
                                           "tasks",
                                           "runs",
                                           "run_models",
                                           "attempts",
                                           "turns",
                                           "candidates",
                                           "builds",
                                           "evaluations",
                                           "correctness_trials",
                                           "timing_series",
                                           "timing_samples",
                                           "baselines",
                                           "findings",
                                           "engines",
                                           "task_summaries",
                                           "imported_candidates",
                                           "schema_version"};

// quick_check reads every page: about 36 ms per MB on a busy 2-core machine (23.7 s for the
// 662 MB of a million attempts), too slow for every open of a large file. Up to this size it
// runs on every open for writing; above it, the cheap check below runs instead (see
// docs/security.md).
constexpr std::int64_t kFullCheckBytes = 64ll * 1024 * 1024;

std::int64_t fileSize(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : -1;
}

// A file cut short: with no WAL content, the main file must hold every page its header counts.
void checkLength(Connection& conn) {
    const std::int64_t size = fileSize(conn.path());
    const std::int64_t wal = fileSize(conn.path() + "-wal");
    if (size <= 0 || wal > 0)
        return;
    Statement pages(conn, "PRAGMA page_count");
    Statement pageSize(conn, "PRAGMA page_size");
    if (!pages.step() || !pageSize.step())
        return;
    const std::int64_t expected = pages.int64(0) * pageSize.int64(0);
    if (size < expected) {
        throw DamagedDatabaseError(damagedDatabaseMessage(
            conn.path(), "the file has " + std::to_string(size) + " bytes but its header counts " +
                             std::to_string(expected) + "; its end was cut off"));
    }
}

void checkPages(Connection& conn) {
    checkLength(conn);
    const std::int64_t size = fileSize(conn.path());
    if (conn.path() == ":memory:" || size > kFullCheckBytes)
        return;
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

void checkTables(Connection& conn) {
    Statement q(conn, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
    for (const char* table : kRequiredTables) {
        q.bind(1, table);
        q.step();
        const bool present = q.int64(0) == 1;
        q.reset();
        if (!present) {
            throw DamagedDatabaseError(damagedDatabaseMessage(
                conn.path(), "schema version " + std::to_string(storedSchemaVersion(conn)) +
                                 " but no table '" + table + "'"));
        }
    }
}

} // namespace

Database::Database(const std::string& path, Access access) {
    m_conn = std::make_unique<Connection>(path, access == Access::ReadOnly
                                                    ? Connection::Mode::ReadOnly
                                                    : Connection::Mode::ReadWrite);
    if (access == Access::ReadWrite) {
        checkPages(*m_conn);
        migrate(*m_conn);
        checkTables(*m_conn);
    } else if (storedSchemaVersion(*m_conn) > currentSchemaVersion()) {
        throw SchemaTooNewError("database '" + path + "' has schema version " +
                                std::to_string(storedSchemaVersion(*m_conn)) +
                                ", newer than this program's " +
                                std::to_string(currentSchemaVersion()));
    }
}

int Database::schemaVersion() {
    return storedSchemaVersion(*m_conn);
}

} // namespace kb::db
