#pragma once
// Thin RAII layer over the sqlite3 C API: a connection, prepared statements and transactions.
// Errors surface as kb::db::Error with SQLite's message and the statement that failed.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace kb::db {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Opening a database written by a newer version of the program: refuse instead of damaging it.
class SchemaTooNewError : public Error {
public:
    using Error::Error;
};

// A database file whose pages are damaged (cut off, overwritten): it is not opened for writing,
// so that nothing is stored on top of the damage. The message says how to recover what is left.
class DamagedDatabaseError : public Error {
public:
    using Error::Error;
};

// The readable message for a damaged database: what SQLite found and how to recover the rest.
std::string damagedDatabaseMessage(const std::string& path, const std::string& finding);

class Connection;

class Statement {
public:
    Statement(Connection& conn, std::string_view sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&&) = delete;

    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);
    Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    Statement& bind(int index, const std::string& value) {
        return bind(index, std::string_view(value));
    }
    Statement& bind(int index, bool value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bindNull(int index);
    template <typename T> Statement& bind(int index, const std::optional<T>& value) {
        return value ? bind(index, *value) : bindNull(index);
    }

    // Returns true while a row is available.
    bool step();
    // Runs a statement that returns no rows.
    void exec();
    void reset();

    bool isNull(int col) const;
    std::int64_t int64(int col) const;
    int int32(int col) const { return static_cast<int>(int64(col)); }
    double real(int col) const;
    std::string text(int col) const;
    std::optional<double> optReal(int col) const;
    std::optional<std::int64_t> optInt64(int col) const;

    // For readers that take every column as it comes (exports): count, names and storage class.
    enum class Type { Integer, Real, Text, Blob, Null };
    int columnCount() const;
    std::string columnName(int col) const;
    Type type(int col) const;

private:
    Connection* m_conn;
    sqlite3_stmt* m_stmt = nullptr;
};

class Connection {
public:
    enum class Mode { ReadWrite, ReadOnly };
    // Opens (and for ReadWrite creates) the database file; ":memory:" works too.
    explicit Connection(const std::string& path, Mode mode = Mode::ReadWrite);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    void exec(std::string_view sql);
    std::int64_t lastInsertId() const;
    int changes() const;
    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }
    [[noreturn]] void raise(std::string_view what) const;

private:
    void switchToWal();

    sqlite3* m_db = nullptr;
    std::string m_path;
};

// Commits on commit(); rolls back if destroyed without it (e.g. by an exception).
// Nested use is supported through savepoints.
class Transaction {
public:
    // Immediate takes the write lock at once when no transaction is open yet: a writer that
    // reads first would otherwise fail with "database is locked" (SQLITE_BUSY_SNAPSHOT) instead
    // of waiting, when another process wrote between its read and its first write.
    enum class Lock { Deferred, Immediate };
    explicit Transaction(Connection& conn, Lock lock = Lock::Deferred);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    Connection& m_conn;
    std::string m_name;
    bool m_done = false;
};

} // namespace kb::db
