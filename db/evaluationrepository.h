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
    // Every stored baseline, by task hash, device and time measured.
    std::vector<BaselineRow> baselines();

    // The newest build of any candidate of the attempt.
    std::optional<BuildRow> latestBuild(Id attemptId);

    // GPU readings around evaluations, ordered by GPU index then as taken.
    enum class GpuSampleScope {
        LatestEvaluation, // id is an attempt: every reading of its newest evaluation
        NewestPerGpu,     // id is a run: the newest reading of each GPU its attempts used
    };
    std::vector<GpuSampleRow> gpuSamples(Id id, GpuSampleScope scope);

private:
    Id storeSeries(Id evaluationId, const TimingSeriesRow& series);
    Connection& m_conn;
};

} // namespace kb::db
