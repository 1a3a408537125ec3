#pragma once
// Aggregates over every run that overviews (the GUI's runs table and catalog) read at once:
// attempts per run and state, the models of each run, the figures that change with a verdict or
// a review, attempt costs and what each model has used. Each is one pass that SQLite serves
// from an index or in run order, so that a database of a million attempts reads quickly.

#include "records.h"
#include "sqlite.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kb::db {

struct RunStatusCount {
    Id runId = 0;
    std::string status; // as stored; see attemptStatusFromString
    int count = 0;
};

// The figures of one run's attempts that change with a verdict, a review, a speedup or a cost.
struct RunAttemptTotals {
    Id runId = 0;
    int correct = 0;    // verdict correct (suspicious ones included)
    int suspicious = 0; // flagged suspicious and not reviewed
    int rejected = 0;   // rejected by a check or by a person
    int accepted = 0;   // accepted by a person
    // Changes whenever any of the above, a speedup, a cost, a verdict or the newest attempt id
    // does (even where no count shows it): a key for what was read of the run.
    std::string fingerprint;
};

// What one model has used over every stored attempt.
struct ModelUsageRow {
    Id modelId = 0;
    int attempts = 0;
    int finished = 0; // attempts with a start and a finish time
    int turns = 0;
    std::int64_t inputTokens = 0;
    std::int64_t outputTokens = 0;
    double costUsd = 0;     // attempts.cost_usd where recorded
    double wallSeconds = 0; // over the finished attempts
};

class OverviewRepository {
public:
    explicit OverviewRepository(Connection& conn)
        : m_conn(conn) {}

    // Attempts per run and state, by run then state.
    std::vector<RunStatusCount> attemptStatusCounts();
    // The names of the models with attempts in each run, sorted, by run id.
    std::map<Id, std::vector<std::string>> modelsPerRun();
    // One row per run with attempts, by run id.
    std::vector<RunAttemptTotals> attemptTotals();
    // attempts.cost_usd by attempt id where a price was known, of one run (0: every run).
    std::map<Id, double> attemptCosts(Id runId = 0);
    // One row per model with attempts, by model id.
    std::vector<ModelUsageRow> modelUsage();

private:
    Connection& m_conn;
};

} // namespace kb::db
