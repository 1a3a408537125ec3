#pragma once
// The Anthropic Messages wire format. The base URL is the host root (the paths carry /v1).

#include "providerprotocol.h"

#include <QJsonObject>

namespace kb::engine {

struct AnthropicOptions {
    QByteArray version = "2023-06-01"; // the anthropic-version header
};

class AnthropicProtocol : public ProviderProtocol {
public:
    explicit AnthropicProtocol(AnthropicOptions options = {})
        : m_options(std::move(options)) {}
    QString name() const override { return QStringLiteral("anthropic"); }
    HttpRequestSpec chatRequest(const ChatRequest& request, const QString& apiKey) const override;
    HttpRequestSpec modelsRequest(const QString& apiKey) const override;
    bool decodeChat(const QByteArray& body, ChatResponse* out, ProviderError* error) const override;
    std::unique_ptr<StreamAggregator> newStreamAggregator() const override;
    bool decodeModels(const QByteArray& body, QList<ModelInfo>* out, QString* error) const override;

    QJsonObject encodeBody(const ChatRequest& request) const;

    // Shared with the stream aggregator.
    static StopReason mapStopReason(const QString& reason);
    // Anthropic's input_tokens leave the cached tokens out; TokenUsage counts them in.
    static void mergeUsage(const QJsonObject& usage, TokenUsage* into);

private:
    HttpHeaders headers(const QString& apiKey) const;
    AnthropicOptions m_options;
};

} // namespace kb::engine
