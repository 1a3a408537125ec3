#pragma once
// A provider's limits: how many requests run at once (the rest wait in order) and how many
// tokens a session may spend (new requests are refused once it is spent). Plain bookkeeping:
// the callbacks start or refuse the work, the owner reports when it ends.

#include <QList>
#include <QString>
#include <functional>

namespace kb::engine {

class RequestLimiter {
public:
    using Start = std::function<void()>;
    using Refuse = std::function<void(const QString& reason)>;

    // 0 means no limit.
    explicit RequestLimiter(int maxConcurrent = 0, qint64 tokenBudget = 0);

    // Runs `start` now if a slot is free, else when one frees up; `refuse` instead when the
    // token budget is spent by then.
    void submit(quint64 id, Start start, Refuse refuse);
    // A started request ended, having used this many tokens.
    void release(quint64 id, qint64 tokensUsed);
    // Drops a request that is still waiting; false when it is not waiting.
    bool cancel(quint64 id);

    int running() const { return static_cast<int>(m_running.size()); }
    int waiting() const { return static_cast<int>(m_queue.size()); }
    qint64 tokensUsed() const { return m_used; }
    qint64 tokenBudget() const { return m_budget; }
    bool budgetSpent() const { return m_budget > 0 && m_used >= m_budget; }
    QString budgetMessage() const;

private:
    struct Waiting {
        quint64 id;
        Start start;
        Refuse refuse;
    };
    void pump();

    int m_maxConcurrent;
    qint64 m_budget;
    qint64 m_used = 0;
    QList<quint64> m_running;
    QList<Waiting> m_queue;
};

} // namespace kb::engine
