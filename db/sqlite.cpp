#include "sqlite.h"

#include <atomic>
#include <chrono>
#include <sqlite3.h>
#include <thread>

namespace kb::db {

std::string damagedDatabaseMessage(const std::string& path, const std::string& finding) {
    return "database '" + path + "' is damaged (" + finding +
           "); it was not opened for writing, so nothing more was changed. Recover what is "
           "readable into a new file with: sqlite3 '" +
           path + "' .recover | sqlite3 '" + path +
           ".recovered' and open that one (the damaged file is kept as it is)";
}

Connection::Connection(const std::string& path, Mode mode)
    : m_path(path) {
    const int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY
                                             : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw Error("cannot open database '" + path + "': " + msg);
    }
    // SQLite quietly falls back to reading a file it may not write; a read-write connection
    // would then fail on its first write, half-way through some piece of work. Say so now.
    if (mode == Mode::ReadWrite && sqlite3_db_readonly(m_db, "main") == 1) {
        sqlite3_close(m_db);
        m_db = nullptr;
        throw Error("cannot open database '" + path +
                    "' for writing: the file is read-only (no write permission, or a read-only "
                    "file system); it was left untouched");
    }
    sqlite3_extended_result_codes(m_db, 1);
    sqlite3_busy_timeout(m_db, 10000);
    // A file that is not a database only shows itself on the first read.
    try {
        exec("PRAGMA foreign_keys = ON");
        if (mode == Mode::ReadWrite && path != ":memory:") {
            switchToWal();
            exec("PRAGMA synchronous = NORMAL");
        }
        exec("SELECT count(*) FROM sqlite_schema");
    } catch (const Error& e) {
        const int primary = sqlite3_extended_errcode(m_db) & 0xff;
        const bool cantOpen = primary == SQLITE_CANTOPEN;
        sqlite3_close(m_db);
        m_db = nullptr;
        if (primary == SQLITE_CORRUPT)
            throw DamagedDatabaseError(damagedDatabaseMessage(path, e.what()));
        if (cantOpen) {
            // A WAL database needs its -wal and -shm files beside it, even to be read.
            throw Error("cannot open database '" + path + "': " + e.what() +
                        "; SQLite must be able to create files in its folder (is the folder "
                        "read-only?); the database was left untouched");
        }
        throw Error("cannot use '" + path + "' as a KernelBench Studio database: " + e.what());
    }
}

void Connection::switchToWal() {
    // Switching a fresh file to WAL needs it to itself for a moment, and SQLite answers "database
    // is locked" at once, without its busy handler, while another process is doing the same
    // (two `run`s started together on a new file). Wait for it as for any other lock.
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    for (;;) {
        try {
            exec("PRAGMA journal_mode = WAL");
            return;
        } catch (const Error&) {
            const int primary = sqlite3_extended_errcode(m_db) & 0xff;
            if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || Clock::now() > deadline)
                throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

Connection::~Connection() {
    sqlite3_close_v2(m_db);
}

void Connection::raise(std::string_view what) const {
    throw Error(std::string(what) + ": " + sqlite3_errmsg(m_db));
}

void Connection::exec(std::string_view sql) {
    char* err = nullptr;
    const std::string s(sql);
    if (sqlite3_exec(m_db, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw Error(msg + " (in: " + s.substr(0, 120) + ")");
    }
}

std::int64_t Connection::lastInsertId() const {
    return sqlite3_last_insert_rowid(m_db);
}

int Connection::changes() const {
    return sqlite3_changes(m_db);
}

Statement::Statement(Connection& conn, std::string_view sql)
    : m_conn(&conn) {
    if (sqlite3_prepare_v2(conn.handle(), sql.data(), static_cast<int>(sql.size()), &m_stmt,
                           nullptr) != SQLITE_OK) {
        conn.raise("cannot prepare '" + std::string(sql.substr(0, 120)) + "'");
    }
}

Statement::Statement(Statement&& other) noexcept
    : m_conn(other.m_conn)
    , m_stmt(other.m_stmt) {
    other.m_stmt = nullptr;
}

Statement::~Statement() {
    sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, std::int64_t value) {
    if (sqlite3_bind_int64(m_stmt, index, value) != SQLITE_OK)
        m_conn->raise("bind failed");
    return *this;
}

Statement& Statement::bind(int index, double value) {
    if (sqlite3_bind_double(m_stmt, index, value) != SQLITE_OK)
        m_conn->raise("bind failed");
    return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
    if (sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT,
                            SQLITE_UTF8) != SQLITE_OK)
        m_conn->raise("bind failed");
    return *this;
}

Statement& Statement::bindNull(int index) {
    if (sqlite3_bind_null(m_stmt, index) != SQLITE_OK)
        m_conn->raise("bind failed");
    return *this;
}

bool Statement::step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    m_conn->raise("statement failed '" + std::string(sqlite3_sql(m_stmt)).substr(0, 120) + "'");
}

void Statement::exec() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

bool Statement::isNull(int col) const {
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

std::int64_t Statement::int64(int col) const {
    return sqlite3_column_int64(m_stmt, col);
}

double Statement::real(int col) const {
    return sqlite3_column_double(m_stmt, col);
}

std::string Statement::text(int col) const {
    const auto* p = sqlite3_column_text(m_stmt, col);
    if (!p)
        return {};
    return {reinterpret_cast<const char*>(p),
            static_cast<size_t>(sqlite3_column_bytes(m_stmt, col))};
}

std::optional<double> Statement::optReal(int col) const {
    if (isNull(col))
        return std::nullopt;
    return real(col);
}

int Statement::columnCount() const {
    return sqlite3_column_count(m_stmt);
}

std::string Statement::columnName(int col) const {
    const char* name = sqlite3_column_name(m_stmt, col);
    return name ? name : "";
}

Statement::Type Statement::type(int col) const {
    switch (sqlite3_column_type(m_stmt, col)) {
    case SQLITE_INTEGER:
        return Type::Integer;
    case SQLITE_FLOAT:
        return Type::Real;
    case SQLITE_TEXT:
        return Type::Text;
    case SQLITE_BLOB:
        return Type::Blob;
    default:
        return Type::Null;
    }
}

std::optional<std::int64_t> Statement::optInt64(int col) const {
    if (isNull(col))
        return std::nullopt;
    return int64(col);
}

namespace {
std::atomic<int> g_savepointCounter{0};
}

Transaction::Transaction(Connection& conn, Lock lock)
    : m_conn(conn) {
    if (lock == Lock::Immediate && sqlite3_get_autocommit(conn.handle()) != 0) {
        m_conn.exec("BEGIN IMMEDIATE"); // m_name stays empty: a top-level transaction
        return;
    }
    m_name = "kb_sp_" + std::to_string(++g_savepointCounter);
    m_conn.exec("SAVEPOINT " + m_name);
}

Transaction::~Transaction() {
    if (m_done)
        return;
    try {
        if (m_name.empty()) {
            m_conn.exec("ROLLBACK");
        } else {
            m_conn.exec("ROLLBACK TO " + m_name);
            m_conn.exec("RELEASE " + m_name);
        }
    } catch (...) {
        // Destructors must not throw; SQLite rolls back an unfinished transaction on close.
    }
}

void Transaction::commit() {
    m_conn.exec(m_name.empty() ? std::string("COMMIT") : "RELEASE " + m_name);
    m_done = true;
}

} // namespace kb::db
