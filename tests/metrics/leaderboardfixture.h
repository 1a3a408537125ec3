#pragma once

#include "outcomebuilder.h"

// The hand-computed leaderboard case shared by metrics.leaderboard and metrics.format.
// Suite: L1 tasks a b c d, L2 tasks x y, L3 task z (a single-task level).
//   alpha L1: a correct (2.0x eager, 1.5x compile; a second, incorrect sample), b correct (1.0x,
//             0.5x), c incorrect, d missing.
//   beta  L1: a correct at exactly 1.05x (1.05x compile), b build error, c rejected, d correct
//             3.0x but suspicious and not accepted.
//   alpha L2: x and y incorrect (an all-failed level).
//   beta  L2: x correct 4.0x / 2.0x (suspicious, accepted), y correct 0.5x / 0.25x.
//   alpha L3: z correct 3.0x; no compile data on L3 at all.
//   beta  L3: missing.
namespace kb::metrics::test {

inline Outcomes table1Fixture() {
    AttemptOutcome alphaA = correct("alpha", "a", 1, 2.0, 1.5);
    alphaA.inputTokens = 100;
    alphaA.outputTokens = 50;
    alphaA.costUsd = 0.5;
    alphaA.turns = 2;
    alphaA.wallSeconds = 10;
    AttemptOutcome alphaA1 = failed("alpha", "a", 1, Verdict::Incorrect, 1);
    alphaA1.inputTokens = 10;
    alphaA1.outputTokens = 5;
    alphaA1.costUsd = 0.25;
    alphaA1.turns = 1;
    alphaA1.wallSeconds = 4;
    AttemptOutcome betaD = correct("beta", "d", 1, 3.0);
    betaD.suspicious = true;
    AttemptOutcome betaX = correct("beta", "x", 2, 4.0, 2.0);
    betaX.suspicious = true;
    betaX.accepted = true;
    return {
        alphaA1,
        alphaA,
        correct("alpha", "b", 1, 1.0, 0.5),
        failed("alpha", "c", 1, Verdict::Incorrect),
        correct("beta", "a", 1, 1.05, 1.05),
        failed("beta", "b", 1, Verdict::BuildError),
        failed("beta", "c", 1, Verdict::Rejected),
        betaD,
        failed("alpha", "x", 2, Verdict::Incorrect),
        failed("alpha", "y", 2, Verdict::RuntimeError),
        betaX,
        correct("beta", "y", 2, 0.5, 0.25),
        correct("alpha", "z", 3, 3.0),
    };
}

// A CPU-style run: no compile baseline anywhere, one model, one level.
inline Outcomes cpuFixture() {
    return {
        correct("cpu-model", "p", 1, 1.25),
        correct("cpu-model", "q", 1, 0.8),
        failed("cpu-model", "r", 1, Verdict::Timeout),
    };
}

} // namespace kb::metrics::test
