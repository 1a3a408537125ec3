#include "turnrecord.h"

#include "providers/redaction.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {
namespace {

std::string redacted(const QString& text, const QList<QByteArray>& secrets) {
    return redactSecrets(text, secrets).toStdString();
}

std::string compact(const QJsonArray& a, const QList<QByteArray>& secrets) {
    return redactSecrets(QJsonDocument(a).toJson(QJsonDocument::Compact), secrets).toStdString();
}

db::TurnRow baseRow(const TurnContext& ctx, const ChatRequest& sent) {
    db::TurnRow t;
    t.attemptId = ctx.attemptId;
    t.turnIndex = ctx.turnIndex;
    t.role = ctx.role.toStdString();
    t.prompt = redacted(promptOf(sent.messages), ctx.secrets);
    t.messagesJson = compact(messagesToJson(sent.messages), ctx.secrets);
    return t;
}

} // namespace

QJsonArray toolCallsToJson(const QList<ToolCall>& calls) {
    QJsonArray out;
    for (const auto& c : calls)
        out.append(QJsonObject{{QStringLiteral("id"), c.id},
                               {QStringLiteral("name"), c.name},
                               {QStringLiteral("arguments"), c.argumentsJson}});
    return out;
}

QJsonArray messagesToJson(const QList<ChatMessage>& messages) {
    QJsonArray out;
    for (const auto& m : messages) {
        QJsonObject o{{QStringLiteral("role"), chatRoleName(m.role)},
                      {QStringLiteral("content"), m.content}};
        if (!m.toolCalls.isEmpty())
            o.insert(QStringLiteral("tool_calls"), toolCallsToJson(m.toolCalls));
        if (!m.toolCallId.isEmpty())
            o.insert(QStringLiteral("tool_call_id"), m.toolCallId);
        if (m.toolError)
            o.insert(QStringLiteral("is_error"), true);
        if (!m.reasoning.isEmpty())
            o.insert(QStringLiteral("reasoning"), m.reasoning);
        out.append(o);
    }
    return out;
}

QString promptOf(const QList<ChatMessage>& messages) {
    QStringList parts;
    for (qsizetype i = messages.size() - 1; i >= 0; --i) {
        const auto& m = messages.at(i);
        if (m.role == ChatRole::Assistant || m.role == ChatRole::System)
            break;
        parts.prepend(m.role == ChatRole::Tool
                          ? QStringLiteral("[tool result %1]\n%2").arg(m.toolCallId, m.content)
                          : m.content);
    }
    return parts.join(QStringLiteral("\n\n"));
}

db::TurnRow turnFromResponse(const TurnContext& ctx, const ChatRequest& sent,
                             const ChatResponse& r) {
    db::TurnRow t = baseRow(ctx, sent);
    t.response =
        redacted(r.content.isEmpty() && !r.refusal.isEmpty() ? r.refusal : r.content, ctx.secrets);
    t.toolCallsJson = compact(toolCallsToJson(r.toolCalls), ctx.secrets);
    t.inputTokens = r.usage.inputTokens;
    t.outputTokens = r.usage.outputTokens;
    t.cacheReadTokens = r.usage.cacheReadTokens;
    t.cacheWriteTokens = r.usage.cacheWriteTokens;
    t.reasoning = redacted(r.reasoning, ctx.secrets);
    t.costUsd = r.costUsd;
    t.latencyMs = r.latencyMs;
    if (r.timeToFirstTokenMs > 0)
        t.ttftMs = r.timeToFirstTokenMs;
    t.modelSnapshot = redacted(r.model, ctx.secrets);
    t.stopReason = stopReasonName(r.stopReason).toStdString();
    return t;
}

QString describeProviderError(const ProviderError& e) {
    // The transport's messages already begin with "HTTP <status>"; others get it added.
    if (e.httpStatus > 0 && !e.message.startsWith(QStringLiteral("HTTP ")))
        return QStringLiteral("HTTP %1: %2").arg(e.httpStatus).arg(e.message);
    return e.message;
}

db::TurnRow turnFromError(const TurnContext& ctx, const ChatRequest& sent, const ProviderError& e) {
    db::TurnRow t = baseRow(ctx, sent);
    t.stopReason = stopReasonName(StopReason::Error).toStdString();
    t.error = redacted(describeProviderError(e), ctx.secrets);
    // A cut stream keeps what arrived and the tokens the provider had counted.
    t.response = redacted(e.partialContent, ctx.secrets);
    t.inputTokens = e.partialUsage.inputTokens;
    t.outputTokens = e.partialUsage.outputTokens;
    t.cacheReadTokens = e.partialUsage.cacheReadTokens;
    t.cacheWriteTokens = e.partialUsage.cacheWriteTokens;
    return t;
}

} // namespace kb::engine
