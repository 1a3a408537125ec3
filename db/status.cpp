#include "records.h"
#include "statussql.h"

#include <array>
#include <utility>

namespace kb::db {
namespace {

// The only place the stored names of the states are spelled (besides the schema's CHECKs).
constexpr std::array<std::pair<RunStatus, const char*>, 6> kRunStatuses{{
    {RunStatus::Created, "created"},
    {RunStatus::Running, "running"},
    {RunStatus::Paused, "paused"},
    {RunStatus::Finished, "finished"},
    {RunStatus::Failed, "failed"},
    {RunStatus::Cancelled, "cancelled"},
}};

constexpr std::array<std::pair<AttemptStatus, const char*>, 7> kAttemptStatuses{{
    {AttemptStatus::Queued, "queued"},
    {AttemptStatus::Generating, "generating"},
    {AttemptStatus::Building, "building"},
    {AttemptStatus::Evaluating, "evaluating"},
    {AttemptStatus::Done, "done"},
    {AttemptStatus::Failed, "failed"},
    {AttemptStatus::Cancelled, "cancelled"},
}};

template <typename Enum, std::size_t N>
const char* nameOf(const std::array<std::pair<Enum, const char*>, N>& names, Enum value,
                   Enum fallback) {
    for (const auto& [e, name] : names) {
        if (e == value)
            return name;
    }
    // Only a value cast from an out-of-range integer gets here.
    return nameOf(names, fallback, fallback);
}

template <typename Enum, std::size_t N>
std::optional<Enum> valueOf(const std::array<std::pair<Enum, const char*>, N>& names,
                            std::string_view name) {
    for (const auto& [e, n] : names) {
        if (name == n)
            return e;
    }
    return std::nullopt;
}

} // namespace

const char* toString(RunStatus status) {
    return nameOf(kRunStatuses, status, kUnknownRunStatus);
}

const char* toString(AttemptStatus status) {
    return nameOf(kAttemptStatuses, status, kUnknownAttemptStatus);
}

std::optional<RunStatus> parseRunStatus(std::string_view name) {
    return valueOf(kRunStatuses, name);
}

std::optional<AttemptStatus> parseAttemptStatus(std::string_view name) {
    return valueOf(kAttemptStatuses, name);
}

RunStatus runStatusFromString(std::string_view name) {
    return parseRunStatus(name).value_or(kUnknownRunStatus);
}

AttemptStatus attemptStatusFromString(std::string_view name) {
    return parseAttemptStatus(name).value_or(kUnknownAttemptStatus);
}

bool isLive(RunStatus status) {
    return status == RunStatus::Created || status == RunStatus::Running ||
           status == RunStatus::Paused;
}

bool isActive(AttemptStatus status) {
    return status == AttemptStatus::Generating || status == AttemptStatus::Building ||
           status == AttemptStatus::Evaluating;
}

bool isPending(AttemptStatus status) {
    return status == AttemptStatus::Queued || isActive(status);
}

bool isFinished(AttemptStatus status) {
    return status == AttemptStatus::Done || status == AttemptStatus::Failed ||
           status == AttemptStatus::Cancelled;
}

std::string sqlLiteral(RunStatus status) {
    return '\'' + std::string(toString(status)) + '\'';
}

std::string sqlLiteral(AttemptStatus status) {
    return '\'' + std::string(toString(status)) + '\'';
}

namespace {

template <typename Enum> std::string listOf(std::initializer_list<Enum> statuses) {
    std::string out = "(";
    for (const Enum s : statuses) {
        if (out.size() > 1)
            out += ',';
        out += sqlLiteral(s);
    }
    return out + ')';
}

} // namespace

std::string sqlList(std::initializer_list<RunStatus> statuses) {
    return listOf(statuses);
}

std::string sqlList(std::initializer_list<AttemptStatus> statuses) {
    return listOf(statuses);
}

std::string sqlActiveAttemptStatuses() {
    return sqlList({AttemptStatus::Generating, AttemptStatus::Building, AttemptStatus::Evaluating});
}

std::string sqlPendingAttemptStatuses() {
    return sqlList({AttemptStatus::Queued, AttemptStatus::Generating, AttemptStatus::Building,
                    AttemptStatus::Evaluating});
}

} // namespace kb::db
