#pragma once
// The chat data model every provider speaks: plain values with no network behind them.
// Provider-specific wire formats live in the *protocol files; these types are what the rest of
// the engine (agents, transcripts, the replay provider) sees.

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <optional>

namespace kb::engine {

enum class ChatRole { System, User, Assistant, Tool };
QString chatRoleName(ChatRole role);
std::optional<ChatRole> chatRoleFromName(const QString& name);

// One tool call the model asked for. The arguments are kept as the model wrote them: they may
// be invalid JSON, which the caller should report back to the model instead of crashing.
struct ToolCall {
    QString id;
    QString name;
    QString argumentsJson;

    // The arguments as an object; empty with *error set when they are not a JSON object.
    QJsonObject arguments(QString* error = nullptr) const;
    friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

struct ChatResponse;

struct ChatMessage {
    ChatRole role = ChatRole::User;
    QString content;
    QList<ToolCall> toolCalls;  // assistant: the calls it made
    QString toolCallId;         // tool: the call this message answers
    bool toolError = false;     // tool: the result reports a failure
    QString reasoning;          // assistant: its thinking, sent back where a provider needs it
    QString reasoningSignature; // assistant: Anthropic's signature over that thinking

    static ChatMessage system(const QString& text);
    static ChatMessage user(const QString& text);
    static ChatMessage assistant(const QString& text);
    static ChatMessage toolResult(const QString& callId, const QString& text, bool isError = false);
    // The assistant turn a response stands for, to append to the conversation.
    static ChatMessage fromResponse(const ChatResponse& response);
    friend bool operator==(const ChatMessage&, const ChatMessage&) = default;
};

struct ToolDefinition {
    QString name;
    QString description;
    QJsonObject parameters; // JSON schema of the arguments object
};

struct ToolChoice {
    enum Mode { Auto, None, Required, Named };
    Mode mode = Auto;
    QString toolName; // Named only
};

struct ChatRequest {
    QString model;
    QList<ChatMessage> messages;
    QList<ToolDefinition> tools;
    ToolChoice toolChoice; // sent only when there are tools
    int maxTokens = 4096;
    std::optional<double> temperature;
    bool stream = false;
    QJsonObject extraBody; // provider-specific fields, merged into the request body as they are
    // OpenAI-compatible: max_tokens or max_completion_tokens; empty = the protocol's default.
    QString tokenLimitField;
};

// Why the model stopped, the same for every provider. The provider's own word is kept in
// ChatResponse::providerStopReason.
enum class StopReason { EndTurn, MaxTokens, ToolUse, Refusal, ContentFilter, PauseTurn, Error };
QString stopReasonName(StopReason reason);
std::optional<StopReason> stopReasonFromName(const QString& name);

// Token counts, normalised: inputTokens counts every prompt token, cached or not; the cache
// fields say how many of them were read from or written to the provider's prompt cache.
struct TokenUsage {
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cacheReadTokens = 0;
    qint64 cacheWriteTokens = 0;

    qint64 total() const { return inputTokens + outputTokens; }
    TokenUsage& operator+=(const TokenUsage& other);
    friend bool operator==(const TokenUsage&, const TokenUsage&) = default;
};

struct ChatResponse {
    QString id;    // the provider's id of the response
    QString model; // the model that answered, as reported
    QString content;
    QString reasoning;
    QString reasoningSignature;
    QString refusal;
    QList<ToolCall> toolCalls;
    StopReason stopReason = StopReason::EndTurn;
    QString providerStopReason;
    TokenUsage usage;
    double latencyMs = 0;
    double timeToFirstTokenMs = 0; // streamed responses only
    std::optional<double> costUsd; // when the model has a price
    int attempts = 1;
    // For the transcript: the request body as sent and the response bytes as received (the SSE
    // stream when streamed). Neither ever holds request headers or an API key.
    QByteArray requestBody;
    QByteArray raw;

    QJsonObject toJson() const;
    static std::optional<ChatResponse> fromJson(const QJsonObject& object,
                                                QString* error = nullptr);
};

struct ProviderError {
    QString message;          // for the user; never holds an API key
    int httpStatus = 0;       // 0: no HTTP answer (network error, timeout, bad data)
    bool transient = false;   // the same request may succeed later
    qint64 retryAfterMs = -1; // what the provider asked us to wait, -1 when it did not say
    QString providerType;     // the provider's error type ("rate_limit_error", ...) if given
    // A stream cut midway: what had arrived (text, and the usage the provider had reported),
    // so the tokens spent are not lost.
    QString partialContent;
    TokenUsage partialUsage;
};

struct ModelInfo {
    QString id;
    QString displayName;
};

// A transcript is a JSON array of responses, one per turn.
QJsonArray transcriptToJson(const QList<ChatResponse>& turns);
std::optional<QList<ChatResponse>> transcriptFromJson(const QByteArray& json, QString* error);

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::ChatResponse)
Q_DECLARE_METATYPE(kb::engine::ProviderError)
Q_DECLARE_METATYPE(kb::engine::ModelInfo)
