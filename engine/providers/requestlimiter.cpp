#include "requestlimiter.h"

namespace kb::engine {

RequestLimiter::RequestLimiter(int maxConcurrent, qint64 tokenBudget)
    : m_maxConcurrent(maxConcurrent)
    , m_budget(tokenBudget) {}

QString RequestLimiter::budgetMessage() const {
    return QStringLiteral("the token budget of %1 tokens is spent (%2 used); no new requests are "
                          "started")
        .arg(m_budget)
        .arg(m_used);
}

void RequestLimiter::submit(quint64 id, Start start, Refuse refuse) {
    m_queue.append({id, std::move(start), std::move(refuse)});
    pump();
}

void RequestLimiter::release(quint64 id, qint64 tokensUsed) {
    if (!m_running.removeOne(id))
        return;
    m_used += tokensUsed;
    pump();
}

bool RequestLimiter::cancel(quint64 id) {
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        if (m_queue.at(i).id == id) {
            m_queue.removeAt(i);
            return true;
        }
    }
    return false;
}

void RequestLimiter::pump() {
    // Callbacks may submit or release in turn; take each item off the queue before calling.
    while (!m_queue.isEmpty()) {
        if (budgetSpent()) {
            Waiting w = m_queue.takeFirst();
            w.refuse(budgetMessage());
            continue;
        }
        if (m_maxConcurrent > 0 && m_running.size() >= m_maxConcurrent)
            return;
        Waiting w = m_queue.takeFirst();
        m_running.append(w.id);
        w.start();
    }
}

} // namespace kb::engine
