#pragma once
// The facade for one configured provider (a vLLM server, OpenRouter, Anthropic, ...): sends
// chat requests through its protocol and transport within the provider's limits, joins
// streams, and adds latency, attempts and cost to each response.

#include "anthropicprotocol.h"
#include "chatclient.h"
#include "httptransport.h"
#include "openaiprotocol.h"
#include "pricing.h"
#include "requestlimiter.h"
#include "requestoptions.h"

#include <QUrl>
#include <memory>
#include <unordered_map>

namespace kb::engine {

enum class ProviderKind { OpenAiCompatible, Anthropic };

struct ProviderConfig {
    QString name; // the user's label
    ProviderKind kind = ProviderKind::OpenAiCompatible;
    QUrl baseUrl;             // OpenAI-compatible: ends in /v1; Anthropic: the host root
    QString apiKey;           // from a KeyStore; empty for local servers
    HttpHeaders extraHeaders; // e.g. anthropic-beta, OpenRouter's HTTP-Referer
    TransportSettings transport;
    int maxConcurrent = 4;  // 0: no limit
    qint64 tokenBudget = 0; // 0: no limit
    PriceTable prices;
    OpenAiOptions openAi;
    AnthropicOptions anthropic;
    // Request settings of the provider and of each model (by model name), applied to every
    // request sent (see applyRequestOptions).
    RequestOptions requestDefaults;
    QHash<QString, RequestOptions> modelOptions;
    RetryPolicy::Clock clock;   // tests only: unset means the system clock
    RetryPolicy::Random random; // tests only: unset means a real random source
};

struct ConnectionReport {
    QList<ModelInfo> models;
    bool modelListed = false; // the tested model is among them
    ChatResponse reply;       // the one-token answer
};

class ChatProvider : public ChatClient {
    Q_OBJECT
public:
    explicit ChatProvider(ProviderConfig config, QObject* parent = nullptr);
    ~ChatProvider() override;

    QString kind() const override { return m_protocol->name(); }
    QString name() const { return m_config.name; }
    quint64 send(const ChatRequest& request) override;
    void cancel(quint64 id) override;

    // GET models: modelsListed or failed with the returned id.
    quint64 listModels();
    // Lists the models, then asks `model` for one token: connectionTested or failed.
    quint64 testConnection(const QString& model);

    const RequestLimiter& limiter() const { return m_limiter; }
    TokenUsage totalUsage() const { return m_totalUsage; }
    double totalCostUsd() const { return m_totalCost; }

Q_SIGNALS:
    void modelsListed(quint64 id, const QList<kb::engine::ModelInfo>& models);
    void connectionTested(quint64 id, const kb::engine::ConnectionReport& report);
    void retrying(quint64 id, int nextAttempt, qint64 delayMs,
                  const kb::engine::ProviderError& cause);

private:
    struct Pending;
    void start(quint64 id);
    void onChunk(quint64 id, const QByteArray& bytes);
    void onSucceeded(quint64 id, const HttpResult& result);
    void fail(quint64 id, ProviderError error);
    void complete(quint64 id, ChatResponse response);
    HttpRequestSpec withExtraHeaders(HttpRequestSpec spec) const;
    void failLater(quint64 id, const ProviderError& error);

    ProviderConfig m_config;
    std::unique_ptr<ProviderProtocol> m_protocol;
    HttpTransport* m_transport;
    RequestLimiter m_limiter;
    std::unordered_map<quint64, std::unique_ptr<Pending>> m_pending;
    QHash<quint64, quint64> m_tests; // chat request id -> connection test id
    QHash<quint64, QList<ModelInfo>> m_testModels;
    quint64 m_nextId = 0;
    TokenUsage m_totalUsage;
    double m_totalCost = 0;
};

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::ConnectionReport)
