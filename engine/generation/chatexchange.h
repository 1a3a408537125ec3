#pragma once
// One model call at a time over a shared ChatClient, with the session-level retry: a transient
// failure the transport could not retry (a stream cut mid-way after its first bytes, a lost
// connection, a silent server) is sent again after a backoff. HTTP errors (429, 5xx, ...) were
// already retried by the transport, honouring retry-after, and are not retried again here.

#include "generationsettings.h"
#include "providers/chatclient.h"
#include "providers/retrypolicy.h"

#include <QPointer>
#include <QTimer>

namespace kb::engine {

class ChatExchange : public QObject {
    Q_OBJECT
public:
    ChatExchange(ChatClient* client, const GenerationSettings& settings, QObject* parent = nullptr);
    ~ChatExchange() override;

    void send(const ChatRequest& request);
    void cancel();
    bool busy() const { return m_requestId != 0 || m_retry.isActive(); }

Q_SIGNALS:
    void answered(const kb::engine::ChatRequest& sent, const kb::engine::ChatResponse& response);
    // Every failed call, also those that are retried (willRetry), so each is stored as a turn.
    void callFailed(const kb::engine::ChatRequest& sent, const kb::engine::ProviderError& error,
                    bool willRetry);

private:
    void dispatch();
    void onFinished(quint64 id, const ChatResponse& response);
    void onFailed(quint64 id, const ProviderError& error);

    QPointer<ChatClient> m_client;
    RetryPolicy m_policy;
    ChatRequest m_request;
    quint64 m_requestId = 0;
    int m_attempt = 0;
    QTimer m_retry;
};

} // namespace kb::engine
