#include "anthropicprotocol.h"

#include "anthropicstream.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace kb::engine {
namespace {

QJsonObject textBlock(const QString& text) {
    return {{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}};
}

QJsonArray assistantBlocks(const ChatMessage& m) {
    QJsonArray blocks;
    // Thinking goes back only with its signature; the API rejects unsigned thinking.
    if (!m.reasoning.isEmpty() && !m.reasoningSignature.isEmpty())
        blocks.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("thinking")},
                                  {QStringLiteral("thinking"), m.reasoning},
                                  {QStringLiteral("signature"), m.reasoningSignature}});
    if (!m.content.isEmpty())
        blocks.append(textBlock(m.content));
    for (const auto& c : m.toolCalls)
        blocks.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                  {QStringLiteral("id"), c.id},
                                  {QStringLiteral("name"), c.name},
                                  {QStringLiteral("input"), c.arguments()}});
    return blocks;
}

QJsonObject toolResultBlock(const ChatMessage& m) {
    QJsonObject b{{QStringLiteral("type"), QStringLiteral("tool_result")},
                  {QStringLiteral("tool_use_id"), m.toolCallId},
                  {QStringLiteral("content"), m.content}};
    if (m.toolError)
        b.insert(QStringLiteral("is_error"), true);
    return b;
}

QJsonValue encodeToolChoice(const ToolChoice& choice) {
    switch (choice.mode) {
    case ToolChoice::Auto:
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("auto")}};
    case ToolChoice::None:
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("none")}};
    case ToolChoice::Required:
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("any")}};
    case ToolChoice::Named:
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("tool")},
                           {QStringLiteral("name"), choice.toolName}};
    }
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("auto")}};
}

} // namespace

StopReason AnthropicProtocol::mapStopReason(const QString& reason) {
    if (reason == QLatin1String("max_tokens") ||
        reason == QLatin1String("model_context_window_exceeded"))
        return StopReason::MaxTokens;
    if (reason == QLatin1String("tool_use"))
        return StopReason::ToolUse;
    if (reason == QLatin1String("refusal"))
        return StopReason::Refusal;
    if (reason == QLatin1String("pause_turn"))
        return StopReason::PauseTurn;
    return StopReason::EndTurn; // "end_turn", "stop_sequence", and anything new
}

void AnthropicProtocol::mergeUsage(const QJsonObject& usage, TokenUsage* into) {
    // message_delta repeats the counts it knows, cumulatively; a missing field keeps its value.
    const auto read = [&](const char* key, qint64 current) {
        const auto v = usage.value(QLatin1String(key));
        return v.isDouble() ? v.toInteger() : current;
    };
    const qint64 cacheRead = read("cache_read_input_tokens", into->cacheReadTokens);
    const qint64 cacheWrite = read("cache_creation_input_tokens", into->cacheWriteTokens);
    const qint64 uncached =
        read("input_tokens", into->inputTokens - into->cacheReadTokens - into->cacheWriteTokens);
    into->cacheReadTokens = cacheRead;
    into->cacheWriteTokens = cacheWrite;
    into->inputTokens = uncached + cacheRead + cacheWrite;
    into->outputTokens = read("output_tokens", into->outputTokens);
}

QJsonObject AnthropicProtocol::encodeBody(const ChatRequest& request) const {
    QStringList system;
    QJsonArray messages;
    // The API wants tool results in the user turn that follows the tool calls, so consecutive
    // user and tool messages become one user message with several content blocks.
    QJsonArray pendingUser;
    const auto flushUser = [&] {
        if (pendingUser.isEmpty())
            return;
        QJsonValue content = pendingUser;
        if (pendingUser.size() == 1 &&
            pendingUser.at(0).toObject().value(QStringLiteral("type")).toString() ==
                QLatin1String("text"))
            content = pendingUser.at(0).toObject().value(QStringLiteral("text"));
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                    {QStringLiteral("content"), content}});
        pendingUser = {};
    };
    for (const auto& m : request.messages) {
        switch (m.role) {
        case ChatRole::System:
            system.append(m.content);
            break;
        case ChatRole::User:
            pendingUser.append(textBlock(m.content));
            break;
        case ChatRole::Tool:
            pendingUser.append(toolResultBlock(m));
            break;
        case ChatRole::Assistant:
            flushUser();
            messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                        {QStringLiteral("content"), assistantBlocks(m)}});
            break;
        }
    }
    flushUser();

    QJsonObject body{{QStringLiteral("model"), request.model},
                     {QStringLiteral("max_tokens"), request.maxTokens},
                     {QStringLiteral("messages"), messages}};
    if (!system.isEmpty())
        body.insert(QStringLiteral("system"), system.join(QStringLiteral("\n\n")));
    if (request.temperature)
        body.insert(QStringLiteral("temperature"), *request.temperature);
    if (request.stream)
        body.insert(QStringLiteral("stream"), true);
    if (!request.tools.isEmpty()) {
        QJsonArray tools;
        for (const auto& t : request.tools) {
            QJsonObject tool{{QStringLiteral("name"), t.name},
                             {QStringLiteral("input_schema"), t.parameters}};
            if (!t.description.isEmpty())
                tool.insert(QStringLiteral("description"), t.description);
            tools.append(tool);
        }
        body.insert(QStringLiteral("tools"), tools);
        body.insert(QStringLiteral("tool_choice"), encodeToolChoice(request.toolChoice));
    }
    for (auto it = request.extraBody.begin(); it != request.extraBody.end(); ++it)
        body.insert(it.key(), it.value());
    return body;
}

HttpHeaders AnthropicProtocol::headers(const QString& apiKey) const {
    HttpHeaders h{{"Content-Type", "application/json"}, {"anthropic-version", m_options.version}};
    if (!apiKey.isEmpty())
        h.emplaceBack("x-api-key", apiKey.toUtf8());
    return h;
}

HttpRequestSpec AnthropicProtocol::chatRequest(const ChatRequest& request,
                                               const QString& apiKey) const {
    return jsonChatRequest(QStringLiteral("v1/messages"), headers(apiKey), request.stream,
                           encodeBody(request));
}

HttpRequestSpec AnthropicProtocol::modelsRequest(const QString& apiKey) const {
    return modelListRequest(QStringLiteral("v1/models?limit=1000"), headers(apiKey));
}

bool AnthropicProtocol::decodeChat(const QByteArray& body, ChatResponse* out,
                                   ProviderError* error) const {
    QJsonObject root;
    if (!parseReplyObject(body, &root, &error->message))
        return false;
    if (root.value(QStringLiteral("type")).toString() == QLatin1String("error") ||
        !root.value(QStringLiteral("content")).isArray()) {
        const ErrorBody e = parseErrorBody(body);
        error->message = e.message.isEmpty()
                             ? QStringLiteral("the provider's reply has no content list")
                             : QStringLiteral("the provider reported an error: %1").arg(e.message);
        error->providerType = e.type;
        return false;
    }
    ChatResponse r;
    r.id = root.value(QStringLiteral("id")).toString();
    r.model = root.value(QStringLiteral("model")).toString();
    for (const auto& v : root.value(QStringLiteral("content")).toArray()) {
        const auto b = v.toObject();
        const QString type = b.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("text")) {
            r.content += b.value(QStringLiteral("text")).toString();
        } else if (type == QLatin1String("thinking")) {
            r.reasoning += b.value(QStringLiteral("thinking")).toString();
            r.reasoningSignature = b.value(QStringLiteral("signature")).toString();
        } else if (type == QLatin1String("tool_use")) {
            r.toolCalls.append(
                {b.value(QStringLiteral("id")).toString(),
                 b.value(QStringLiteral("name")).toString(),
                 QString::fromUtf8(QJsonDocument(b.value(QStringLiteral("input")).toObject())
                                       .toJson(QJsonDocument::Compact))});
        }
    }
    r.providerStopReason = root.value(QStringLiteral("stop_reason")).toString();
    r.stopReason = mapStopReason(r.providerStopReason);
    mergeUsage(root.value(QStringLiteral("usage")).toObject(), &r.usage);
    *out = std::move(r);
    return true;
}

std::unique_ptr<StreamAggregator> AnthropicProtocol::newStreamAggregator() const {
    return std::make_unique<AnthropicStreamAggregator>();
}

bool AnthropicProtocol::decodeModels(const QByteArray& body, QList<ModelInfo>* out,
                                     QString* error) const {
    const auto doc = QJsonDocument::fromJson(body);
    if (!doc.isObject() || !doc.object().value(QStringLiteral("data")).isArray()) {
        *error = QStringLiteral("the model list is not valid JSON with a \"data\" list");
        return false;
    }
    for (const auto& v : doc.object().value(QStringLiteral("data")).toArray()) {
        const auto o = v.toObject();
        const auto id = o.value(QStringLiteral("id")).toString();
        if (!id.isEmpty())
            out->append({id, o.value(QStringLiteral("display_name")).toString()});
    }
    return true;
}

} // namespace kb::engine
