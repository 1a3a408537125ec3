#pragma once
// The OpenAI Chat Completions wire format, as spoken by vLLM, SGLang, Ollama, the llama.cpp
// server, OpenRouter, DeepSeek and OpenAI itself. The base URL ends in /v1.

#include "providerprotocol.h"

#include <QJsonObject>

namespace kb::engine {

struct OpenAiOptions {
    bool includeUsageInStream = true;    // stream_options.include_usage
    bool useMaxCompletionTokens = false; // OpenAI's newer name for max_tokens
};

class OpenAiProtocol : public ProviderProtocol {
public:
    explicit OpenAiProtocol(OpenAiOptions options = {})
        : m_options(options) {}
    QString name() const override { return QStringLiteral("openai"); }
    HttpRequestSpec chatRequest(const ChatRequest& request, const QString& apiKey) const override;
    HttpRequestSpec modelsRequest(const QString& apiKey) const override;
    bool decodeChat(const QByteArray& body, ChatResponse* out, ProviderError* error) const override;
    std::unique_ptr<StreamAggregator> newStreamAggregator() const override;
    bool decodeModels(const QByteArray& body, QList<ModelInfo>* out, QString* error) const override;

    QJsonObject encodeBody(const ChatRequest& request) const;

    // Shared with the stream aggregator.
    static StopReason mapFinishReason(const QString& reason);
    static TokenUsage decodeUsage(const QJsonObject& usage);

private:
    OpenAiOptions m_options;
};

} // namespace kb::engine
