#pragma once

#include "engine/metrics/outcome.h"

#include <QMetaType>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace kb::metrics::test {

using Outcomes = std::vector<AttemptOutcome>;

// Compact construction of outcomes for hand-written cases.
struct O {
    std::string model = "m";
    std::string task = "t";
    int level = 1;
    int sample = 0;
    Verdict verdict = Verdict::Correct;
    std::optional<double> eager;
    std::optional<double> compile;
    bool suspicious = false;
    bool accepted = false;

    operator AttemptOutcome() const // NOLINT(google-explicit-constructor): terse fixtures
    {
        AttemptOutcome o;
        o.model = model;
        o.taskId = task;
        o.level = level;
        o.sampleIndex = sample;
        o.verdict = verdict;
        o.speedupEager = eager;
        o.speedupCompile = compile;
        o.suspicious = suspicious;
        o.accepted = accepted;
        return o;
    }
};

inline AttemptOutcome correct(std::string model, std::string task, int level,
                              std::optional<double> eager, std::optional<double> compile = {},
                              int sample = 0) {
    return O{std::move(model), std::move(task), level, sample, Verdict::Correct, eager, compile};
}

inline AttemptOutcome failed(std::string model, std::string task, int level, Verdict verdict,
                             int sample = 0) {
    return O{std::move(model), std::move(task), level, sample, verdict, {}, {}};
}

// The outcome with a 95 % interval on its eager speedup (and noisy when asked).
inline AttemptOutcome withEagerBounds(AttemptOutcome o, double low, double high,
                                      bool noisy = false) {
    o.eagerLow = low;
    o.eagerHigh = high;
    o.noisy = noisy;
    return o;
}

// Value of an optional double for QFETCH-friendly tables: NaN stands for nullopt.
inline double orNan(std::optional<double> value) {
    return value ? *value : std::numeric_limits<double>::quiet_NaN();
}

} // namespace kb::metrics::test

Q_DECLARE_METATYPE(kb::metrics::test::Outcomes)
