#include "openaiprotocol.h"

#include "openaistream.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace kb::engine {
namespace {

QJsonObject encodeMessage(const ChatMessage& m) {
    QJsonObject o{{QStringLiteral("role"), chatRoleName(m.role)}};
    if (m.role == ChatRole::Tool) {
        o.insert(QStringLiteral("tool_call_id"), m.toolCallId);
        o.insert(QStringLiteral("content"), m.content);
        return o;
    }
    if (m.role == ChatRole::Assistant && !m.toolCalls.isEmpty()) {
        QJsonArray calls;
        for (const auto& c : m.toolCalls) {
            calls.append(QJsonObject{{QStringLiteral("id"), c.id},
                                     {QStringLiteral("type"), QStringLiteral("function")},
                                     {QStringLiteral("function"),
                                      QJsonObject{{QStringLiteral("name"), c.name},
                                                  {QStringLiteral("arguments"),
                                                   c.argumentsJson.isEmpty() ? QStringLiteral("{}")
                                                                             : c.argumentsJson}}}});
        }
        o.insert(QStringLiteral("tool_calls"), calls);
        // A tool-calling turn without text is sent with null content, which every server takes.
        o.insert(QStringLiteral("content"),
                 m.content.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(m.content));
        return o;
    }
    o.insert(QStringLiteral("content"), m.content);
    return o;
}

QJsonValue encodeToolChoice(const ToolChoice& choice) {
    switch (choice.mode) {
    case ToolChoice::Auto:
        return QStringLiteral("auto");
    case ToolChoice::None:
        return QStringLiteral("none");
    case ToolChoice::Required:
        return QStringLiteral("required");
    case ToolChoice::Named:
        return QJsonObject{
            {QStringLiteral("type"), QStringLiteral("function")},
            {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), choice.toolName}}}};
    }
    return QStringLiteral("auto");
}

// Content is a string, null, or (rarely) a list of {type:"text", text} parts.
QString contentText(const QJsonValue& v) {
    if (v.isString())
        return v.toString();
    QString out;
    for (const auto& part : v.toArray())
        out += part.toObject().value(QStringLiteral("text")).toString();
    return out;
}

HttpHeaders baseHeaders(const QString& apiKey) {
    HttpHeaders h{{"Content-Type", "application/json"}};
    if (!apiKey.isEmpty())
        h.emplaceBack("Authorization", QByteArray("Bearer " + apiKey.toUtf8()));
    return h;
}

} // namespace

StopReason OpenAiProtocol::mapFinishReason(const QString& reason) {
    if (reason == QLatin1String("length"))
        return StopReason::MaxTokens;
    if (reason == QLatin1String("tool_calls") || reason == QLatin1String("function_call"))
        return StopReason::ToolUse;
    if (reason == QLatin1String("content_filter"))
        return StopReason::ContentFilter;
    if (reason == QLatin1String("error"))
        return StopReason::Error;
    return StopReason::EndTurn; // "stop", "eos", and anything new
}

TokenUsage OpenAiProtocol::decodeUsage(const QJsonObject& usage) {
    TokenUsage u;
    u.inputTokens = usage.value(QStringLiteral("prompt_tokens")).toInteger();
    u.outputTokens = usage.value(QStringLiteral("completion_tokens")).toInteger();
    const auto details = usage.value(QStringLiteral("prompt_tokens_details")).toObject();
    u.cacheReadTokens = details.value(QStringLiteral("cached_tokens")).toInteger();
    // DeepSeek reports its cache separately.
    if (u.cacheReadTokens == 0)
        u.cacheReadTokens = usage.value(QStringLiteral("prompt_cache_hit_tokens")).toInteger();
    return u;
}

QJsonObject OpenAiProtocol::encodeBody(const ChatRequest& request) const {
    QJsonArray messages;
    for (const auto& m : request.messages)
        messages.append(encodeMessage(m));
    QJsonObject body{{QStringLiteral("model"), request.model},
                     {QStringLiteral("messages"), messages},
                     {QStringLiteral("stream"), request.stream}};
    const QString tokenField = !request.tokenLimitField.isEmpty() ? request.tokenLimitField
                               : m_options.useMaxCompletionTokens
                                   ? QStringLiteral("max_completion_tokens")
                                   : QStringLiteral("max_tokens");
    body.insert(tokenField, request.maxTokens);
    if (request.temperature)
        body.insert(QStringLiteral("temperature"), *request.temperature);
    if (request.stream && m_options.includeUsageInStream)
        body.insert(QStringLiteral("stream_options"),
                    QJsonObject{{QStringLiteral("include_usage"), true}});
    if (!request.tools.isEmpty()) {
        QJsonArray tools;
        for (const auto& t : request.tools) {
            QJsonObject fn{{QStringLiteral("name"), t.name},
                           {QStringLiteral("parameters"), t.parameters}};
            if (!t.description.isEmpty())
                fn.insert(QStringLiteral("description"), t.description);
            tools.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("function")},
                                     {QStringLiteral("function"), fn}});
        }
        body.insert(QStringLiteral("tools"), tools);
        body.insert(QStringLiteral("tool_choice"), encodeToolChoice(request.toolChoice));
    }
    for (auto it = request.extraBody.begin(); it != request.extraBody.end(); ++it)
        body.insert(it.key(), it.value());
    return body;
}

HttpRequestSpec OpenAiProtocol::chatRequest(const ChatRequest& request,
                                            const QString& apiKey) const {
    return jsonChatRequest(QStringLiteral("chat/completions"), baseHeaders(apiKey), request.stream,
                           encodeBody(request));
}

HttpRequestSpec OpenAiProtocol::modelsRequest(const QString& apiKey) const {
    return modelListRequest(QStringLiteral("models"), baseHeaders(apiKey));
}

bool OpenAiProtocol::decodeChat(const QByteArray& body, ChatResponse* out,
                                ProviderError* error) const {
    QJsonObject root;
    if (!parseReplyObject(body, &root, &error->message))
        return false;
    const auto choices = root.value(QStringLiteral("choices")).toArray();
    if (choices.isEmpty()) {
        // Some gateways answer 200 with an error object.
        const ErrorBody e = parseErrorBody(body);
        error->message = e.message.isEmpty()
                             ? QStringLiteral("the provider's reply has no choices")
                             : QStringLiteral("the provider reported an error: %1").arg(e.message);
        error->providerType = e.type;
        return false;
    }
    const auto choice = choices.at(0).toObject();
    const auto msg = choice.value(QStringLiteral("message")).toObject();
    ChatResponse r;
    r.id = root.value(QStringLiteral("id")).toString();
    r.model = root.value(QStringLiteral("model")).toString();
    r.content = contentText(msg.value(QStringLiteral("content")));
    r.reasoning = msg.value(QStringLiteral("reasoning_content")).toString();
    if (r.reasoning.isEmpty())
        r.reasoning = msg.value(QStringLiteral("reasoning")).toString();
    r.refusal = msg.value(QStringLiteral("refusal")).toString();
    for (const auto& v : msg.value(QStringLiteral("tool_calls")).toArray()) {
        const auto c = v.toObject();
        const auto fn = c.value(QStringLiteral("function")).toObject();
        const auto args = fn.value(QStringLiteral("arguments"));
        // Ollama sends the arguments as an object rather than a JSON string.
        r.toolCalls.append(
            {c.value(QStringLiteral("id")).toString(), fn.value(QStringLiteral("name")).toString(),
             args.isObject()
                 ? QString::fromUtf8(QJsonDocument(args.toObject()).toJson(QJsonDocument::Compact))
                 : args.toString()});
    }
    r.providerStopReason = choice.value(QStringLiteral("finish_reason")).toString();
    r.stopReason = mapFinishReason(r.providerStopReason);
    if (!r.toolCalls.isEmpty() && r.stopReason == StopReason::EndTurn)
        r.stopReason = StopReason::ToolUse;
    if (!r.refusal.isEmpty())
        r.stopReason = StopReason::Refusal;
    r.usage = decodeUsage(root.value(QStringLiteral("usage")).toObject());
    *out = std::move(r);
    return true;
}

std::unique_ptr<StreamAggregator> OpenAiProtocol::newStreamAggregator() const {
    return std::make_unique<OpenAiStreamAggregator>();
}

bool OpenAiProtocol::decodeModels(const QByteArray& body, QList<ModelInfo>* out,
                                  QString* error) const {
    const auto doc = QJsonDocument::fromJson(body);
    if (!doc.isObject() || !doc.object().value(QStringLiteral("data")).isArray()) {
        *error = QStringLiteral("the model list is not valid JSON with a \"data\" list");
        return false;
    }
    for (const auto& v : doc.object().value(QStringLiteral("data")).toArray()) {
        const auto id = v.toObject().value(QStringLiteral("id")).toString();
        if (!id.isEmpty())
            out->append({id, v.toObject().value(QStringLiteral("name")).toString()});
    }
    return true;
}

} // namespace kb::engine
