#include "chatcompletionprovider.h"

#include <QEventLoop>
#include <QTimer>

namespace kb::engine {

ChatCompletionProvider::ChatCompletionProvider(ChatClient* client, ChatCompletionSettings settings)
    : m_client(client)
    , m_settings(std::move(settings)) {}

QString ChatCompletionProvider::kind() const {
    return m_client ? m_client->kind() : QString();
}

GenerationResult ChatCompletionProvider::generate(const GenerationRequest& request) {
    GenerationResult out;
    out.prompt = request.prompt;
    if (!m_client) {
        out.error = QStringLiteral("the chat provider is gone");
        return out;
    }
    ChatRequest chat;
    chat.model = request.model;
    if (!m_settings.systemPrompt.isEmpty())
        chat.messages.append(ChatMessage::system(m_settings.systemPrompt));
    chat.messages.append(ChatMessage::user(request.prompt));
    chat.maxTokens = m_settings.maxTokens;
    chat.temperature = m_settings.temperature;
    chat.stream = m_settings.stream;

    QEventLoop loop;
    bool done = false;
    const quint64 id = m_client->send(chat);
    const auto c1 = QObject::connect(m_client, &ChatClient::finished, &loop,
                                     [&](quint64 rid, const ChatResponse& r) {
                                         if (rid != id)
                                             return;
                                         done = true;
                                         out.ok = true;
                                         out.response = r.content;
                                         out.inputTokens = r.usage.inputTokens;
                                         out.outputTokens = r.usage.outputTokens;
                                         out.latencyMs = r.latencyMs;
                                         out.stopReason = stopReasonName(r.stopReason);
                                         loop.quit();
                                     });
    const auto c2 = QObject::connect(m_client, &ChatClient::failed, &loop,
                                     [&](quint64 rid, const ProviderError& e) {
                                         if (rid != id)
                                             return;
                                         done = true;
                                         out.error = e.message;
                                         out.transient = e.transient;
                                         out.stopReason = stopReasonName(StopReason::Error);
                                         loop.quit();
                                     });
    QObject::connect(m_client, &QObject::destroyed, &loop, &QEventLoop::quit);
    QTimer limit;
    if (m_settings.timeoutMs > 0) {
        limit.setSingleShot(true);
        QObject::connect(&limit, &QTimer::timeout, &loop, &QEventLoop::quit);
        limit.start(m_settings.timeoutMs);
    }
    loop.exec();
    if (!done) {
        if (m_client)
            m_client->cancel(id);
        out.error = m_client
                        ? QStringLiteral("no answer within %1 s").arg(m_settings.timeoutMs / 1000.0)
                        : QStringLiteral("the chat provider was destroyed during the request");
        out.transient = true;
    }
    QObject::disconnect(c1);
    QObject::disconnect(c2);
    return out;
}

} // namespace kb::engine
