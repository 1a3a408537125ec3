#include "anthropicstream.h"

#include "anthropicprotocol.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

void AnthropicStreamAggregator::fail(const QString& message, bool transient, const QString& type) {
    m_error.message = message;
    m_error.transient = transient;
    m_error.providerType = type;
}

StreamStep AnthropicStreamAggregator::feed(const SseEvent& event) {
    StreamStep step;
    if (m_stopped || !m_error.message.isEmpty())
        return step;
    QJsonParseError perr{};
    const auto doc = QJsonDocument::fromJson(event.data, &perr);
    if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
        fail(QStringLiteral("the provider's stream holds an event that is not valid JSON (%1)")
                 .arg(perr.errorString()),
             false);
        return step;
    }
    const auto o = doc.object();
    QString type = o.value(QStringLiteral("type")).toString();
    if (type.isEmpty())
        type = QString::fromUtf8(event.event);

    if (type == QLatin1String("message_start")) {
        const auto msg = o.value(QStringLiteral("message")).toObject();
        m_response.id = msg.value(QStringLiteral("id")).toString();
        m_response.model = msg.value(QStringLiteral("model")).toString();
        AnthropicProtocol::mergeUsage(msg.value(QStringLiteral("usage")).toObject(),
                                      &m_response.usage);
    } else if (type == QLatin1String("content_block_start")) {
        const int index = o.value(QStringLiteral("index")).toInt();
        const auto cb = o.value(QStringLiteral("content_block")).toObject();
        Block& b = m_blocks[index];
        b.type = cb.value(QStringLiteral("type")).toString();
        b.text = cb.value(b.type == QLatin1String("thinking") ? QStringLiteral("thinking")
                                                              : QStringLiteral("text"))
                     .toString();
        b.toolId = cb.value(QStringLiteral("id")).toString();
        b.toolName = cb.value(QStringLiteral("name")).toString();
        if (b.type == QLatin1String("text"))
            step.text = b.text;
        else if (b.type == QLatin1String("thinking"))
            step.reasoning = b.text;
    } else if (type == QLatin1String("content_block_delta")) {
        Block& b = m_blocks[o.value(QStringLiteral("index")).toInt()];
        const auto delta = o.value(QStringLiteral("delta")).toObject();
        const QString dtype = delta.value(QStringLiteral("type")).toString();
        if (dtype == QLatin1String("text_delta")) {
            step.text = delta.value(QStringLiteral("text")).toString();
            b.text += step.text;
        } else if (dtype == QLatin1String("thinking_delta")) {
            step.reasoning = delta.value(QStringLiteral("thinking")).toString();
            b.text += step.reasoning;
        } else if (dtype == QLatin1String("signature_delta")) {
            b.signature += delta.value(QStringLiteral("signature")).toString();
        } else if (dtype == QLatin1String("input_json_delta")) {
            b.partialJson += delta.value(QStringLiteral("partial_json")).toString();
        }
    } else if (type == QLatin1String("message_delta")) {
        const auto delta = o.value(QStringLiteral("delta")).toObject();
        if (delta.value(QStringLiteral("stop_reason")).isString())
            m_response.providerStopReason = delta.value(QStringLiteral("stop_reason")).toString();
        AnthropicProtocol::mergeUsage(o.value(QStringLiteral("usage")).toObject(),
                                      &m_response.usage);
    } else if (type == QLatin1String("message_stop")) {
        m_stopped = true;
    } else if (type == QLatin1String("error")) {
        const ErrorBody e = parseErrorBody(event.data);
        // overloaded_error and api_error mid-stream are the provider's trouble, not ours.
        const bool transient =
            e.type == QLatin1String("overloaded_error") || e.type == QLatin1String("api_error");
        fail(QStringLiteral("the provider reported an error in the stream: %1")
                 .arg(e.message.isEmpty() ? e.type : e.message),
             transient, e.type);
    }
    // ping, content_block_stop and unknown events change nothing we keep.
    return step;
}

ChatResponse AnthropicStreamAggregator::result() const {
    ChatResponse r = m_response;
    for (const auto& [index, b] : m_blocks) {
        if (b.type == QLatin1String("text")) {
            r.content += b.text;
        } else if (b.type == QLatin1String("thinking")) {
            r.reasoning += b.text;
            r.reasoningSignature = b.signature;
        } else if (b.type == QLatin1String("tool_use")) {
            // An empty input arrives as no fragments at all.
            r.toolCalls.append({b.toolId, b.toolName,
                                b.partialJson.isEmpty() ? QStringLiteral("{}") : b.partialJson});
        }
    }
    r.stopReason = AnthropicProtocol::mapStopReason(r.providerStopReason);
    return r;
}

} // namespace kb::engine
