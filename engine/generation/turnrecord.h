#pragma once
// One model call as stored in the turns table: the messages sent, the answer, the tool calls,
// tokens, cost and latency. Every text passes through redaction with the provider's secrets
// first, so a key that a server echoes back never reaches the database.

#include "db/records.h"
#include "providers/chattypes.h"

#include <QJsonArray>

namespace kb::engine {

QJsonArray messagesToJson(const QList<ChatMessage>& messages);
QJsonArray toolCallsToJson(const QList<ToolCall>& calls);

struct TurnContext {
    db::Id attemptId = 0;
    int turnIndex = 0;
    QString role = QStringLiteral("generation"); // generation, feedback, tool
    QList<QByteArray> secrets;
};

// The prompt column: the text of the messages that opened this turn (the last user message,
// or the tool results since the model's last answer).
QString promptOf(const QList<ChatMessage>& messages);

db::TurnRow turnFromResponse(const TurnContext& ctx, const ChatRequest& sent,
                             const ChatResponse& response);
// "HTTP 401 Unauthorized from the provider: …" once, however the error was built.
QString describeProviderError(const ProviderError& error);
db::TurnRow turnFromError(const TurnContext& ctx, const ChatRequest& sent,
                          const ProviderError& error);

} // namespace kb::engine
