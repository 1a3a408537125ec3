#pragma once
// When to try a request again and how long to wait first. Pure: the clock and the random
// source are injected, so tests see exact delays.

#include "providerprotocol.h"

#include <QDateTime>
#include <functional>
#include <optional>

namespace kb::engine {

struct RetrySettings {
    int maxAttempts = 4;             // including the first; 1 disables retries
    qint64 baseDelayMs = 1000;       // first backoff; doubles each attempt
    qint64 maxDelayMs = 30000;       // backoff cap
    double jitter = 0.25;            // a backoff is shortened by up to this fraction
    qint64 maxRetryAfterMs = 120000; // a longer retry-after fails the call instead of waiting
};

struct RetryDecision {
    bool retry = false;
    qint64 delayMs = 0;
};

class RetryPolicy {
public:
    using Clock = std::function<QDateTime()>; // now, for retry-after HTTP dates
    using Random = std::function<double()>;   // uniform in [0, 1)

    explicit RetryPolicy(RetrySettings settings = {}, Clock clock = {}, Random random = {});

    const RetrySettings& settings() const { return m_settings; }

    static bool isRetryableStatus(int httpStatus);

    // What the provider asked us to wait, from retry-after-ms or retry-after (seconds or an
    // HTTP date); nullopt when neither is there or readable.
    std::optional<qint64> retryAfterMs(const HttpHeaders& responseHeaders) const;

    // After attempt number `attempt` (1 = the first) failed: try again, and after how long?
    // `retryable` is whether the failure may pass (status, network error, x-should-retry).
    RetryDecision decide(int attempt, bool retryable, std::optional<qint64> retryAfter) const;

    // The backoff alone, jitter applied.
    qint64 backoffMs(int attempt) const;

private:
    RetrySettings m_settings;
    Clock m_clock;
    Random m_random;
};

} // namespace kb::engine
