#include "attemptusage.h"

#include "db/sqlite.h"

#include <QUrl>
#include <algorithm>
#include <optional>

namespace kb::report {

namespace {

constexpr const char* kUsageSelect =
    "SELECT a.id, p.name, p.kind, p.base_url, "
    "(SELECT sum(cost_usd) FROM turns WHERE attempt_id = a.id), "
    "(SELECT coalesce(sum(cache_read_tokens), 0) FROM turns WHERE attempt_id = a.id), "
    "(SELECT coalesce(sum(cache_write_tokens), 0) FROM turns WHERE attempt_id = a.id), "
    "(SELECT coalesce(sum(latency_ms), 0) FROM turns WHERE attempt_id = a.id), "
    "(SELECT count(*) FROM turns WHERE attempt_id = a.id AND (latency_ms > 0 "
    "OR input_tokens > 0 OR output_tokens > 0)) "
    "FROM attempts a JOIN models m ON m.id = a.model_id "
    "JOIN providers p ON p.id = m.provider_id ";

// turn_details (schema 9) in turn order: the time to first token of streamed answers and the
// model snapshot the provider named.
constexpr const char* kDetailsOfRun =
    "SELECT t.attempt_id, d.ttft_ms, d.model_snapshot FROM turn_details d "
    "JOIN turns t ON t.id = d.turn_id JOIN attempts a ON a.id = t.attempt_id "
    "WHERE ?1 = 0 OR a.run_id = ?1 ORDER BY t.attempt_id, t.turn_index, t.id";
constexpr const char* kDetailsOfAttempt =
    "SELECT t.attempt_id, d.ttft_ms, d.model_snapshot FROM turn_details d "
    "JOIN turns t ON t.id = d.turn_id WHERE t.attempt_id = ?1 ORDER BY t.turn_index, t.id";

QString hostOf(const std::string& baseUrl) {
    const QUrl url(QString::fromStdString(baseUrl));
    if (url.host().isEmpty())
        return {};
    return url.port() > 0 ? url.host() + QLatin1Char(':') + QString::number(url.port())
                          : url.host();
}

AttemptUsage readUsage(const db::Statement& q) {
    AttemptUsage u;
    u.provider = q.text(1);
    u.providerKind = q.text(2);
    u.baseUrlHost = hostOf(q.text(3)).toStdString();
    u.costUsd = q.optReal(4);
    u.cacheReadTokens = q.int64(5);
    u.cacheWriteTokens = q.int64(6);
    u.latencyMs = q.real(7);
    u.calls = q.int32(8);
    return u;
}

void addDetail(AttemptUsage& u, std::optional<double> ttftMs, const std::string& snapshot) {
    if (ttftMs) {
        u.ttftSumMs += *ttftMs;
        ++u.ttftTurns;
    }
    if (!snapshot.empty() && std::find(u.modelSnapshots.begin(), u.modelSnapshots.end(),
                                       snapshot) == u.modelSnapshots.end())
        u.modelSnapshots.push_back(snapshot);
}

// An older database opened read-only (before schema 9) has no turn_details.
bool hasTurnDetails(db::Connection& conn) {
    db::Statement q(
        conn, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'turn_details'");
    return q.step() && q.int64(0) > 0;
}

} // namespace

std::map<db::Id, AttemptUsage> loadAttemptUsage(db::Connection& conn, db::Id runId) {
    std::map<db::Id, AttemptUsage> out;
    db::Statement q(conn, std::string(kUsageSelect) + "WHERE ?1 = 0 OR a.run_id = ?1");
    q.bind(1, runId);
    while (q.step())
        out.emplace(q.int64(0), readUsage(q));
    if (!hasTurnDetails(conn))
        return out;
    db::Statement d(conn, kDetailsOfRun);
    d.bind(1, runId);
    while (d.step()) {
        if (auto it = out.find(d.int64(0)); it != out.end())
            addDetail(it->second, d.optReal(1), d.text(2));
    }
    return out;
}

struct AttemptUsageReader::Statements {
    db::Statement usage;
    std::optional<db::Statement> details;
};

AttemptUsageReader::AttemptUsageReader(db::Connection& conn)
    : m_statements(
          new Statements{db::Statement(conn, std::string(kUsageSelect) + "WHERE a.id = ?1"),
                         hasTurnDetails(conn)
                             ? std::optional<db::Statement>(std::in_place, conn, kDetailsOfAttempt)
                             : std::nullopt}) {}

AttemptUsageReader::~AttemptUsageReader() = default;

AttemptUsage AttemptUsageReader::read(db::Id attemptId) {
    AttemptUsage u;
    auto& q = m_statements->usage;
    q.bind(1, attemptId);
    if (q.step())
        u = readUsage(q);
    q.reset();
    if (auto& d = m_statements->details) {
        d->bind(1, attemptId);
        while (d->step())
            addDetail(u, d->optReal(1), d->text(2));
        d->reset();
    }
    return u;
}

} // namespace kb::report
