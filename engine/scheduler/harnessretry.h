#pragma once
// Retries of transient failures (a lost harness worker, the harness failing itself): exponential
// backoff with full jitter. A candidate's own failure is never retried.

#include <QString>

namespace kb::engine {

struct HarnessRetryPolicy {
    int limit = 3;            // tries after the first failure
    double baseSeconds = 0.5; // first delay (before jitter)
    double maxSeconds = 60;

    // Delay before retry number `tries` (1-based): uniform in [d/2, d] with d = base * 2^(tries-1),
    // capped at maxSeconds.
    double delaySeconds(int tries) const;
};

} // namespace kb::engine
