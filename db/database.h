#pragma once
// An open, migrated KernelBench Studio database. One Database per thread (SQLite connections
// are not shared between threads); WAL lets several processes read while one writes.

#include "sqlite.h"

#include <memory>
#include <string>

namespace kb::db {

class Database {
public:
    enum class Access { ReadWrite, ReadOnly };
    // Opens or creates the file and brings its schema up to date. For writing, the file is
    // checked first (PRAGMA quick_check) and, once upgraded, for every table of the schema.
    // Throws Error with a readable message (unreadable path, not a database, schema too new);
    // DamagedDatabaseError, with how to recover, when the file is damaged.
    explicit Database(const std::string& path, Access access = Access::ReadWrite);

    Connection& connection() { return *m_conn; }
    const std::string& path() const { return m_conn->path(); }
    int schemaVersion();

private:
    std::unique_ptr<Connection> m_conn;
};

} // namespace kb::db
