#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kb::metrics {

// How one attempt (one sample of one model on one task) ended. Only Correct can score.
enum class Verdict {
    NotAttempted,
    BuildError,
    Incorrect,
    RuntimeError,
    Timeout,
    Rejected,
    Correct
};

// Stable lower-case name ("not_attempted", "build_error", ...), used in exports and the database.
std::string_view verdictName(Verdict verdict);
std::optional<Verdict> verdictFromName(std::string_view name);

// One row of input to every metric: a flat, denormalised record of one attempt.
struct AttemptOutcome {
    std::string model;
    std::string taskId;
    int level = 1;
    int sampleIndex = 0;
    Verdict verdict = Verdict::NotAttempted;
    bool suspicious = false;            // flagged by plausibility/static checks
    bool accepted = false;              // a person reviewed the suspicious attempt and accepted it
    std::optional<double> speedupEager; // eager_median / candidate_median, when correct and timed
    std::optional<double> speedupCompile; // compile_median / candidate_median, when available
    long long inputTokens = 0;
    long long outputTokens = 0;
    double costUsd = 0;
    int turns = 0;
    double wallSeconds = 0;
};

// Which baseline a speedup is measured against.
enum class Baseline { Eager, Compile };

// True when the attempt may score: Correct and not an unreviewed suspicious attempt.
bool isScoringCorrect(const AttemptOutcome& outcome);

// True when the attempt is flagged suspicious and nobody accepted it.
inline bool isUnacceptedSuspicious(const AttemptOutcome& outcome) {
    return outcome.suspicious && !outcome.accepted;
}

// The speedup against the given baseline, or nullopt when absent, non-finite or not positive.
std::optional<double> usableSpeedup(const AttemptOutcome& outcome, Baseline baseline);

} // namespace kb::metrics
