#include "outcome.h"

#include <array>
#include <cmath>
#include <utility>

namespace kb::metrics {

namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 7> kVerdictNames{{
    {Verdict::NotAttempted, "not_attempted"},
    {Verdict::BuildError, "build_error"},
    {Verdict::Incorrect, "incorrect"},
    {Verdict::RuntimeError, "runtime_error"},
    {Verdict::Timeout, "timeout"},
    {Verdict::Rejected, "rejected"},
    {Verdict::Correct, "correct"},
}};

} // namespace

std::string_view verdictName(Verdict verdict) {
    for (const auto& [value, name] : kVerdictNames) {
        if (value == verdict) {
            return name;
        }
    }
    return "unknown";
}

std::optional<Verdict> verdictFromName(std::string_view name) {
    for (const auto& [value, known] : kVerdictNames) {
        if (known == name) {
            return value;
        }
    }
    return std::nullopt;
}

bool isScoringCorrect(const AttemptOutcome& outcome) {
    return outcome.verdict == Verdict::Correct && !isUnacceptedSuspicious(outcome);
}

std::optional<double> usableSpeedup(const AttemptOutcome& outcome, Baseline baseline) {
    const std::optional<double>& value =
        baseline == Baseline::Eager ? outcome.speedupEager : outcome.speedupCompile;
    if (!value || !std::isfinite(*value) || *value <= 0.0) {
        return std::nullopt;
    }
    return value;
}

std::optional<SpeedupBounds> speedupBounds(const AttemptOutcome& outcome, Baseline baseline) {
    if (!usableSpeedup(outcome, baseline)) {
        return std::nullopt;
    }
    const bool eager = baseline == Baseline::Eager;
    const std::optional<double>& low = eager ? outcome.eagerLow : outcome.compileLow;
    const std::optional<double>& high = eager ? outcome.eagerHigh : outcome.compileHigh;
    const auto good = [](const std::optional<double>& v) {
        return v && std::isfinite(*v) && *v > 0.0;
    };
    if (!good(low) || !good(high) || *low > *high) {
        return std::nullopt;
    }
    return SpeedupBounds{*low, *high};
}

std::optional<double> clearingSpeedup(const AttemptOutcome& outcome, Baseline baseline) {
    const auto speedup = usableSpeedup(outcome, baseline);
    if (!speedup) {
        return std::nullopt;
    }
    // The same rule as the database's task summaries: a finite, positive lower bound.
    const std::optional<double>& low =
        baseline == Baseline::Eager ? outcome.eagerLow : outcome.compileLow;
    if (low && std::isfinite(*low) && *low > 0.0) {
        return low;
    }
    return speedup;
}

} // namespace kb::metrics
