#pragma once
// Failures that are not the model's or the candidate's: the provider could not answer
// (provider_error) or the machinery failed (infra_error: the harness killed from outside, a
// full disk, a lost worker). Such an attempt is stored as failed, left out of every score,
// counted apart, and queued again when the run is resumed.

#include "db/records.h"
#include "db/sqlite.h"

#include <QHash>
#include <QString>
#include <optional>

namespace kb::engine {

inline const QString kVerdictProviderError = QStringLiteral("provider_error");
inline const QString kVerdictInfraError = QStringLiteral("infra_error");

// provider_error, infra_error, harness_error: nothing of the model was judged.
bool isOperationalVerdict(const QString& verdict);

// Queues the run's provider_error and infra_error attempts again (status queued, verdict
// pending, retries reset); returns how many. Their stored turns stay as history.
int requeueOperationalFailures(db::Connection& conn, db::Id runId);

// How many of the run's attempts ended with each of provider_error and infra_error.
struct OperationalCounts {
    int provider = 0;
    int infrastructure = 0;
    int total() const { return provider + infrastructure; }
};
OperationalCounts operationalCounts(db::Connection& conn, db::Id runId);

// Stops a run early when a model's provider keeps refusing the request itself: after
// `limit` attempts in a row of one model ended with HTTP 400, 401, 403 or 404 (a wrong key,
// a parameter the model does not take, an unknown model). Anything else (an answer, a
// transient failure) resets that model's count.
class ProviderFaultTracker {
public:
    explicit ProviderFaultTracker(int limit = 3)
        : m_limit(limit) {}
    void reset() { m_streak.clear(); }
    void noteAnswer(const QString& model) { m_streak.remove(model); }
    // The reason to stop the run, once the limit is reached.
    std::optional<QString> noteFailure(const QString& model, int httpStatus,
                                       const QString& message);
    static bool isRequestRefusal(int httpStatus);

private:
    int m_limit;
    QHash<QString, int> m_streak;
};

} // namespace kb::engine
