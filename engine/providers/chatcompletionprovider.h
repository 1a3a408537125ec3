#pragma once
// The engine's synchronous Provider over any ChatClient: one user turn with the prompt, the
// reply as the candidate. It waits in a local event loop, so call it from the thread the
// client lives in.

#include "chatclient.h"
#include "provider.h"

#include <QPointer>
#include <optional>

namespace kb::engine {

struct ChatCompletionSettings {
    int maxTokens = 16384;
    std::optional<double> temperature;
    bool stream = false;
    QString systemPrompt;
    int timeoutMs = 0; // 0: the client's own limits only
};

class ChatCompletionProvider : public Provider {
public:
    explicit ChatCompletionProvider(ChatClient* client, ChatCompletionSettings settings = {});
    QString kind() const override;
    GenerationResult generate(const GenerationRequest& request) override;

private:
    QPointer<ChatClient> m_client;
    ChatCompletionSettings m_settings;
};

} // namespace kb::engine
