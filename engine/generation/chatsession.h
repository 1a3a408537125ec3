#pragma once
// One-shot and multi-turn generation over a chat model: the KernelBench-style prompt, the
// candidate taken from the reply's code block; in multi-turn mode the feedback on each
// candidate goes back as the next user message.

#include "chatexchange.h"
#include "generationsession.h"

namespace kb::engine {

class ChatSession : public GenerationSession {
    Q_OBJECT
public:
    ChatSession(GenerationContext context, ChatClient* client, QObject* parent = nullptr);
    void start() override;
    bool canContinue() const override;
    void continueWith(const QString& feedback) override;

private:
    void ask(const QString& role);
    void onAnswered(const ChatRequest& sent, const ChatResponse& response);
    void onCallFailed(const ChatRequest& sent, const ProviderError& error, bool willRetry);

    ChatExchange* m_exchange;
    QList<ChatMessage> m_messages;
    QString m_role;
    int m_candidates = 0;
};

} // namespace kb::engine
