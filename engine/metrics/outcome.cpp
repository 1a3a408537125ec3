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

} // namespace kb::metrics
