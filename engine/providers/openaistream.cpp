#include "openaistream.h"

#include "openaiprotocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

StreamStep OpenAiStreamAggregator::feed(const SseEvent& event) {
    StreamStep step;
    if (m_done || !m_error.message.isEmpty())
        return step;
    if (event.data.trimmed() == "[DONE]") {
        m_done = true;
        return step;
    }
    QJsonParseError perr{};
    const auto doc = QJsonDocument::fromJson(event.data, &perr);
    if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
        m_error.message = QStringLiteral("the provider's stream holds an event that is not valid "
                                         "JSON (%1)")
                              .arg(perr.errorString());
        return step;
    }
    const auto chunk = doc.object();
    if (chunk.contains(QStringLiteral("error"))) {
        const ErrorBody e = parseErrorBody(event.data);
        m_error.message =
            QStringLiteral("the provider reported an error in the stream: %1")
                .arg(e.message.isEmpty() ? QStringLiteral("(no message)") : e.message);
        m_error.providerType = e.type;
        m_error.transient = true;
        return step;
    }
    if (m_response.id.isEmpty())
        m_response.id = chunk.value(QStringLiteral("id")).toString();
    if (m_response.model.isEmpty())
        m_response.model = chunk.value(QStringLiteral("model")).toString();
    const auto usage = chunk.value(QStringLiteral("usage"));
    if (usage.isObject())
        m_response.usage = OpenAiProtocol::decodeUsage(usage.toObject());

    const auto choices = chunk.value(QStringLiteral("choices")).toArray();
    if (choices.isEmpty())
        return step;
    const auto choice = choices.at(0).toObject();
    const auto delta = choice.value(QStringLiteral("delta")).toObject();
    step.text = delta.value(QStringLiteral("content")).toString();
    step.reasoning = delta.value(QStringLiteral("reasoning_content")).toString();
    if (step.reasoning.isEmpty())
        step.reasoning = delta.value(QStringLiteral("reasoning")).toString();
    m_response.content += step.text;
    m_response.reasoning += step.reasoning;
    m_response.refusal += delta.value(QStringLiteral("refusal")).toString();

    const auto calls = delta.value(QStringLiteral("tool_calls")).toArray();
    for (qsizetype i = 0; i < calls.size(); ++i) {
        const auto c = calls.at(i).toObject();
        // Servers that send whole calls sometimes leave the index out.
        const int index = c.value(QStringLiteral("index")).toInt(static_cast<int>(i));
        ToolCall& call = m_calls[index];
        const QString id = c.value(QStringLiteral("id")).toString();
        if (call.id.isEmpty() && !id.isEmpty())
            call.id = id;
        const auto fn = c.value(QStringLiteral("function")).toObject();
        const QString name = fn.value(QStringLiteral("name")).toString();
        if (call.name.isEmpty() && !name.isEmpty())
            call.name = name;
        const auto args = fn.value(QStringLiteral("arguments"));
        call.argumentsJson +=
            args.isObject()
                ? QString::fromUtf8(QJsonDocument(args.toObject()).toJson(QJsonDocument::Compact))
                : args.toString();
    }
    const auto finish = choice.value(QStringLiteral("finish_reason"));
    if (finish.isString()) {
        m_sawFinish = true;
        m_response.providerStopReason = finish.toString();
    }
    return step;
}

bool OpenAiStreamAggregator::isComplete() const {
    // "[DONE]" ends every conforming stream; a server that closes right after the finish
    // reason has still said everything but the usage.
    return m_done || m_sawFinish;
}

ChatResponse OpenAiStreamAggregator::result() const {
    ChatResponse r = m_response;
    for (const auto& [index, call] : m_calls)
        r.toolCalls.append(call);
    r.stopReason = OpenAiProtocol::mapFinishReason(r.providerStopReason);
    if (!r.toolCalls.isEmpty() && r.stopReason == StopReason::EndTurn)
        r.stopReason = StopReason::ToolUse;
    if (!r.refusal.isEmpty())
        r.stopReason = StopReason::Refusal;
    return r;
}

} // namespace kb::engine
