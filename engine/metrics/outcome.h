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
    // The 95 % interval of each speedup when the harness measured one (interleaved timing);
    // absent for older data. Bounds are used only when both are finite and positive.
    std::optional<double> eagerLow;
    std::optional<double> eagerHigh;
    std::optional<double> compileLow;
    std::optional<double> compileHigh;
    bool noisy = false; // some measurement missed its precision target within its time cap
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

// A speedup's 95 % interval [low, high].
struct SpeedupBounds {
    double low = 0;
    double high = 0;
    bool contains(double value) const { return low <= value && value <= high; }
    bool overlaps(const SpeedupBounds& other) const {
        return low <= other.high && other.low <= high;
    }
};

// The interval of the usable speedup against the baseline, when both bounds are finite and
// positive; nullopt otherwise (no speedup, or older data measured without one).
std::optional<SpeedupBounds> speedupBounds(const AttemptOutcome& outcome, Baseline baseline);

// What a threshold is compared with (fast_p): the lower bound of the speedup's interval when it
// has one, else the speedup itself; nullopt when there is no usable speedup. A speedup "clears"
// p when this value is strictly greater than p.
std::optional<double> clearingSpeedup(const AttemptOutcome& outcome, Baseline baseline);

} // namespace kb::metrics
