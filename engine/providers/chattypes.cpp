#include "chattypes.h"

#include <QJsonDocument>
#include <array>
#include <utility>

namespace kb::engine {
namespace {

constexpr std::array<std::pair<ChatRole, const char*>, 4> kRoles{{
    {ChatRole::System, "system"},
    {ChatRole::User, "user"},
    {ChatRole::Assistant, "assistant"},
    {ChatRole::Tool, "tool"},
}};

constexpr std::array<std::pair<StopReason, const char*>, 7> kStopReasons{{
    {StopReason::EndTurn, "end_turn"},
    {StopReason::MaxTokens, "max_tokens"},
    {StopReason::ToolUse, "tool_use"},
    {StopReason::Refusal, "refusal"},
    {StopReason::ContentFilter, "content_filter"},
    {StopReason::PauseTurn, "pause_turn"},
    {StopReason::Error, "error"},
}};

QString str(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toString();
}

} // namespace

QString chatRoleName(ChatRole role) {
    for (const auto& [r, name] : kRoles)
        if (r == role)
            return QLatin1String(name);
    return {};
}

std::optional<ChatRole> chatRoleFromName(const QString& name) {
    for (const auto& [r, n] : kRoles)
        if (name == QLatin1String(n))
            return r;
    return std::nullopt;
}

QString stopReasonName(StopReason reason) {
    for (const auto& [r, name] : kStopReasons)
        if (r == reason)
            return QLatin1String(name);
    return {};
}

std::optional<StopReason> stopReasonFromName(const QString& name) {
    for (const auto& [r, n] : kStopReasons)
        if (name == QLatin1String(n))
            return r;
    return std::nullopt;
}

QJsonObject ToolCall::arguments(QString* error) const {
    if (argumentsJson.trimmed().isEmpty())
        return {};
    QJsonParseError err{};
    const auto doc = QJsonDocument::fromJson(argumentsJson.toUtf8(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        if (error)
            *error = err.error != QJsonParseError::NoError
                         ? QStringLiteral("the arguments of tool call %1 are not valid JSON: %2")
                               .arg(name, err.errorString())
                         : QStringLiteral("the arguments of tool call %1 are not a JSON object")
                               .arg(name);
        return {};
    }
    return doc.object();
}

ChatMessage ChatMessage::system(const QString& text) {
    ChatMessage m;
    m.role = ChatRole::System;
    m.content = text;
    return m;
}

ChatMessage ChatMessage::user(const QString& text) {
    ChatMessage m;
    m.content = text;
    return m;
}

ChatMessage ChatMessage::assistant(const QString& text) {
    ChatMessage m;
    m.role = ChatRole::Assistant;
    m.content = text;
    return m;
}

ChatMessage ChatMessage::toolResult(const QString& callId, const QString& text, bool isError) {
    ChatMessage m;
    m.role = ChatRole::Tool;
    m.toolCallId = callId;
    m.content = text;
    m.toolError = isError;
    return m;
}

ChatMessage ChatMessage::fromResponse(const ChatResponse& response) {
    ChatMessage m;
    m.role = ChatRole::Assistant;
    m.content = response.content;
    m.toolCalls = response.toolCalls;
    m.reasoning = response.reasoning;
    m.reasoningSignature = response.reasoningSignature;
    return m;
}

TokenUsage& TokenUsage::operator+=(const TokenUsage& other) {
    inputTokens += other.inputTokens;
    outputTokens += other.outputTokens;
    cacheReadTokens += other.cacheReadTokens;
    cacheWriteTokens += other.cacheWriteTokens;
    return *this;
}

QJsonObject ChatResponse::toJson() const {
    QJsonArray calls;
    for (const auto& c : toolCalls)
        calls.append(QJsonObject{{QStringLiteral("id"), c.id},
                                 {QStringLiteral("name"), c.name},
                                 {QStringLiteral("arguments"), c.argumentsJson}});
    QJsonObject o{
        {QStringLiteral("id"), id},
        {QStringLiteral("model"), model},
        {QStringLiteral("content"), content},
        {QStringLiteral("tool_calls"), calls},
        {QStringLiteral("stop_reason"), stopReasonName(stopReason)},
        {QStringLiteral("provider_stop_reason"), providerStopReason},
        {QStringLiteral("usage"),
         QJsonObject{{QStringLiteral("input_tokens"), QJsonValue(usage.inputTokens)},
                     {QStringLiteral("output_tokens"), QJsonValue(usage.outputTokens)},
                     {QStringLiteral("cache_read_tokens"), QJsonValue(usage.cacheReadTokens)},
                     {QStringLiteral("cache_write_tokens"), QJsonValue(usage.cacheWriteTokens)}}},
        {QStringLiteral("latency_ms"), latencyMs},
        {QStringLiteral("attempts"), attempts},
    };
    if (!reasoning.isEmpty())
        o.insert(QStringLiteral("reasoning"), reasoning);
    if (!reasoningSignature.isEmpty())
        o.insert(QStringLiteral("reasoning_signature"), reasoningSignature);
    if (!refusal.isEmpty())
        o.insert(QStringLiteral("refusal"), refusal);
    if (timeToFirstTokenMs > 0)
        o.insert(QStringLiteral("time_to_first_token_ms"), timeToFirstTokenMs);
    if (costUsd)
        o.insert(QStringLiteral("cost_usd"), *costUsd);
    if (!requestBody.isEmpty())
        o.insert(QStringLiteral("request"), QString::fromUtf8(requestBody));
    if (!raw.isEmpty())
        o.insert(QStringLiteral("raw"), QString::fromUtf8(raw));
    return o;
}

std::optional<ChatResponse> ChatResponse::fromJson(const QJsonObject& o, QString* error) {
    ChatResponse r;
    const auto reason = stopReasonFromName(str(o, "stop_reason"));
    if (!reason) {
        if (error)
            *error = QStringLiteral("unknown stop reason \"%1\"").arg(str(o, "stop_reason"));
        return std::nullopt;
    }
    r.stopReason = *reason;
    r.id = str(o, "id");
    r.model = str(o, "model");
    r.content = str(o, "content");
    r.reasoning = str(o, "reasoning");
    r.reasoningSignature = str(o, "reasoning_signature");
    r.refusal = str(o, "refusal");
    r.providerStopReason = str(o, "provider_stop_reason");
    for (const auto& v : o.value(QStringLiteral("tool_calls")).toArray()) {
        const auto c = v.toObject();
        r.toolCalls.append({str(c, "id"), str(c, "name"), str(c, "arguments")});
    }
    const auto u = o.value(QStringLiteral("usage")).toObject();
    r.usage.inputTokens = u.value(QStringLiteral("input_tokens")).toInteger();
    r.usage.outputTokens = u.value(QStringLiteral("output_tokens")).toInteger();
    r.usage.cacheReadTokens = u.value(QStringLiteral("cache_read_tokens")).toInteger();
    r.usage.cacheWriteTokens = u.value(QStringLiteral("cache_write_tokens")).toInteger();
    r.latencyMs = o.value(QStringLiteral("latency_ms")).toDouble();
    r.timeToFirstTokenMs = o.value(QStringLiteral("time_to_first_token_ms")).toDouble();
    if (o.contains(QStringLiteral("cost_usd")))
        r.costUsd = o.value(QStringLiteral("cost_usd")).toDouble();
    r.attempts = o.value(QStringLiteral("attempts")).toInt(1);
    r.requestBody = str(o, "request").toUtf8();
    r.raw = str(o, "raw").toUtf8();
    return r;
}

QJsonArray transcriptToJson(const QList<ChatResponse>& turns) {
    QJsonArray a;
    for (const auto& t : turns)
        a.append(t.toJson());
    return a;
}

std::optional<QList<ChatResponse>> transcriptFromJson(const QByteArray& json, QString* error) {
    QJsonParseError err{};
    const auto doc = QJsonDocument::fromJson(json, &err);
    if (err.error != QJsonParseError::NoError) {
        if (error)
            *error = QStringLiteral("the transcript is not valid JSON: %1").arg(err.errorString());
        return std::nullopt;
    }
    // Either a bare array of turns or an object holding them under "turns".
    const QJsonArray turns =
        doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("turns")).toArray();
    if (!doc.isArray() && !doc.object().value(QStringLiteral("turns")).isArray()) {
        if (error)
            *error = QStringLiteral("the transcript is neither a list of turns nor an object with "
                                    "a \"turns\" list");
        return std::nullopt;
    }
    QList<ChatResponse> out;
    for (qsizetype i = 0; i < turns.size(); ++i) {
        if (!turns.at(i).isObject()) {
            if (error)
                *error = QStringLiteral("turn %1 of the transcript is not an object").arg(i + 1);
            return std::nullopt;
        }
        QString why;
        auto r = ChatResponse::fromJson(turns.at(i).toObject(), &why);
        if (!r) {
            if (error)
                *error = QStringLiteral("turn %1 of the transcript: %2").arg(i + 1).arg(why);
            return std::nullopt;
        }
        out.append(std::move(*r));
    }
    return out;
}

} // namespace kb::engine
