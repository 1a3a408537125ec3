#pragma once
// The stored names of the states as SQL text, for the repositories' statements: written from
// the one list in status.cpp, so that no statement spells a state itself. Internal to db.

#include "records.h"

#include <initializer_list>
#include <string>

namespace kb::db {

// 'queued' (quoted for SQL; the names hold no quote).
std::string sqlLiteral(RunStatus status);
std::string sqlLiteral(AttemptStatus status);
// ('generating','building','evaluating'), for an IN clause.
std::string sqlList(std::initializer_list<RunStatus> statuses);
std::string sqlList(std::initializer_list<AttemptStatus> statuses);
// The states an attempt is worked on in, and those with its result still to come.
std::string sqlActiveAttemptStatuses();
std::string sqlPendingAttemptStatuses();

} // namespace kb::db
