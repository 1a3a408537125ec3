#pragma once
// What generating each attempt cost and who served it, read from its conversation turns: the
// per-attempt figures behind the CSV/JSON usage columns and the reports' usage section.

#include "reportdata.h"

#include <map>
#include <memory>

namespace kb::db {
class Connection;
}

namespace kb::report {

// Usage of every attempt of one run (runId 0: every run), by attempt id. The model and token
// fields are left for the caller (they come from the attempt row).
std::map<db::Id, AttemptUsage> loadAttemptUsage(db::Connection& conn, db::Id runId);

// The same figures for one attempt at a time, with the statements prepared once (the streamed
// JSON export reads a million attempts this way).
class AttemptUsageReader {
public:
    explicit AttemptUsageReader(db::Connection& conn);
    ~AttemptUsageReader();
    AttemptUsageReader(const AttemptUsageReader&) = delete;
    AttemptUsageReader& operator=(const AttemptUsageReader&) = delete;

    AttemptUsage read(db::Id attemptId);

private:
    struct Statements;
    std::unique_ptr<Statements> m_statements;
};

} // namespace kb::report
