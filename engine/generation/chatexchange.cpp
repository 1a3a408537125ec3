#include "chatexchange.h"

namespace kb::engine {
namespace {
RetrySettings retrySettings(const GenerationSettings& s) {
    RetrySettings r;
    r.maxAttempts = std::max(1, s.callAttempts);
    r.baseDelayMs = std::max<qint64>(1, s.retryBaseDelayMs);
    r.maxDelayMs = std::max<qint64>(r.baseDelayMs, 60000);
    return r;
}
} // namespace

ChatExchange::ChatExchange(ChatClient* client, const GenerationSettings& settings, QObject* parent)
    : QObject(parent)
    , m_client(client)
    , m_policy(retrySettings(settings)) {
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &ChatExchange::dispatch);
    if (m_client) {
        connect(m_client, &ChatClient::finished, this, &ChatExchange::onFinished);
        connect(m_client, &ChatClient::failed, this, &ChatExchange::onFailed);
    }
}

ChatExchange::~ChatExchange() {
    cancel();
}

void ChatExchange::send(const ChatRequest& request) {
    m_request = request;
    m_attempt = 0;
    dispatch();
}

void ChatExchange::cancel() {
    m_retry.stop();
    const quint64 id = m_requestId;
    m_requestId = 0;
    if (id != 0 && m_client)
        m_client->cancel(id);
}

void ChatExchange::dispatch() {
    ++m_attempt;
    if (!m_client) {
        ProviderError e;
        e.message = QStringLiteral("the provider is gone");
        QMetaObject::invokeMethod(
            this, [this, e] { Q_EMIT callFailed(m_request, e, false); }, Qt::QueuedConnection);
        return;
    }
    m_requestId = m_client->send(m_request);
}

void ChatExchange::onFinished(quint64 id, const ChatResponse& response) {
    if (id == 0 || id != m_requestId)
        return;
    m_requestId = 0;
    Q_EMIT answered(m_request, response);
}

void ChatExchange::onFailed(quint64 id, const ProviderError& error) {
    if (id == 0 || id != m_requestId)
        return;
    m_requestId = 0;
    // Statuses the transport retries itself (429, 5xx, ...) have had their retries.
    const bool noAnswer = !RetryPolicy::isRetryableStatus(error.httpStatus) &&
                          error.message != QLatin1String("cancelled");
    const RetryDecision d = m_policy.decide(
        m_attempt, error.transient && noAnswer,
        error.retryAfterMs >= 0 ? std::optional<qint64>(error.retryAfterMs) : std::nullopt);
    const QPointer<ChatExchange> self(this); // a slot may end the session
    Q_EMIT callFailed(m_request, error, d.retry);
    if (self && d.retry)
        m_retry.start(static_cast<int>(d.delayMs));
}

} // namespace kb::engine
