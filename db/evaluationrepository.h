#pragma once
// Candidates, builds, evaluations, timing samples, baselines and anti-cheat findings.

#include "records.h"
#include "sqlite.h"

#include <optional>

namespace kb::db {

class EvaluationRepository {
public:
    explicit EvaluationRepository(Connection& conn)
        : m_conn(conn) {}

    // Stores a whole evaluation and the attempt's final state in one transaction.
    // Returns the evaluation id.
    Id store(const EvaluationRecord& record);

    AttemptDetail detail(Id attemptId);
    std::vector<TimingSeriesRow> timing(Id evaluationId);
    std::optional<BaselineRow> baseline(const std::string& taskHash, const std::string& device,
                                        const std::string& torchVersion,
                                        const std::string& settingsKey);
    std::vector<BaselineRow> baselinesForTask(const std::string& taskHash);

private:
    Id storeSeries(Id evaluationId, const TimingSeriesRow& series);
    Connection& m_conn;
};

} // namespace kb::db
