#pragma once
// Replies of a scripted model in both wire formats, for the fake provider server: text, tool
// calls, refusals and streams with fragments split across TCP writes.

#include "fakeproviderserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::test {

struct ScriptedCall {
    QString id;
    QString name;
    QJsonObject args;
};

enum class Wire { OpenAi, Anthropic };

inline QByteArray compactJson(const QJsonObject& o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

inline QJsonObject openAiUsage(int in, int out, int cached = 0) {
    QJsonObject u{{QStringLiteral("prompt_tokens"), in},
                  {QStringLiteral("completion_tokens"), out}};
    if (cached > 0)
        u.insert(QStringLiteral("prompt_tokens_details"),
                 QJsonObject{{QStringLiteral("cached_tokens"), cached}});
    return u;
}

inline QJsonObject anthropicUsage(int in, int out, int cacheRead = 0) {
    return {{QStringLiteral("input_tokens"), in},
            {QStringLiteral("output_tokens"), out},
            {QStringLiteral("cache_read_input_tokens"), cacheRead},
            {QStringLiteral("cache_creation_input_tokens"), 0}};
}

// A whole (not streamed) reply: text and/or tool calls; stop is the provider's stop word
// (default: stop/end_turn, or tool_calls/tool_use when there are calls).
inline ScriptedResponse reply(Wire wire, const QString& text, const QList<ScriptedCall>& calls = {},
                              const QString& stop = {}, int in = 100, int out = 20,
                              int cached = 0) {
    if (wire == Wire::OpenAi) {
        QJsonObject message{{QStringLiteral("role"), QStringLiteral("assistant")},
                            {QStringLiteral("content"),
                             text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text)}};
        QJsonArray tc;
        for (const auto& c : calls)
            tc.append(QJsonObject{{QStringLiteral("id"), c.id},
                                  {QStringLiteral("type"), QStringLiteral("function")},
                                  {QStringLiteral("function"),
                                   QJsonObject{{QStringLiteral("name"), c.name},
                                               {QStringLiteral("arguments"),
                                                QString::fromUtf8(compactJson(c.args))}}}});
        if (!tc.isEmpty())
            message.insert(QStringLiteral("tool_calls"), tc);
        const QString finish = !stop.isEmpty()   ? stop
                               : calls.isEmpty() ? QStringLiteral("stop")
                                                 : QStringLiteral("tool_calls");
        const QJsonObject body{{QStringLiteral("id"), QStringLiteral("cmpl")},
                               {QStringLiteral("model"), QStringLiteral("coder")},
                               {QStringLiteral("choices"),
                                QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                       {QStringLiteral("message"), message},
                                                       {QStringLiteral("finish_reason"), finish}}}},
                               {QStringLiteral("usage"), openAiUsage(in, out, cached)}};
        return ScriptedResponse::json(200, compactJson(body));
    }
    QJsonArray content;
    if (!text.isEmpty())
        content.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                   {QStringLiteral("text"), text}});
    for (const auto& c : calls)
        content.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                   {QStringLiteral("id"), c.id},
                                   {QStringLiteral("name"), c.name},
                                   {QStringLiteral("input"), c.args}});
    const QString finish = !stop.isEmpty()   ? stop
                           : calls.isEmpty() ? QStringLiteral("end_turn")
                                             : QStringLiteral("tool_use");
    const QJsonObject body{{QStringLiteral("id"), QStringLiteral("msg")},
                           {QStringLiteral("type"), QStringLiteral("message")},
                           {QStringLiteral("role"), QStringLiteral("assistant")},
                           {QStringLiteral("model"), QStringLiteral("coder")},
                           {QStringLiteral("content"), content},
                           {QStringLiteral("stop_reason"), finish},
                           {QStringLiteral("usage"), anthropicUsage(in, out, cached)}};
    return ScriptedResponse::json(200, compactJson(body));
}

// A streamed reply whose text arrives in pieces, and whose one tool call's arguments are split
// in two fragments; cutBeforeEnd drops the closing events (a stream cut mid-way).
inline ScriptedResponse streamed(Wire wire, const QStringList& textPieces,
                                 const std::optional<ScriptedCall>& call = {},
                                 bool cutBeforeEnd = false) {
    QList<QByteArray> chunks;
    const QByteArray args = call ? compactJson(call->args) : QByteArray();
    const QByteArray argsA = args.left(args.size() / 2);
    const QByteArray argsB = args.mid(args.size() / 2);
    if (wire == Wire::OpenAi) {
        auto delta = [](const QJsonObject& d, const QJsonValue& finish = QJsonValue::Null) {
            return sseData(compactJson(
                {{QStringLiteral("choices"),
                  QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                         {QStringLiteral("delta"), d},
                                         {QStringLiteral("finish_reason"), finish}}}}}));
        };
        for (const auto& piece : textPieces)
            chunks << delta({{QStringLiteral("content"), piece}});
        if (call) {
            auto fragment = [&](const QByteArray& part, bool first) {
                QJsonObject fn{{QStringLiteral("arguments"), QString::fromUtf8(part)}};
                QJsonObject tc{{QStringLiteral("index"), 0}};
                if (first) {
                    fn.insert(QStringLiteral("name"), call->name);
                    tc.insert(QStringLiteral("id"), call->id);
                    tc.insert(QStringLiteral("type"), QStringLiteral("function"));
                }
                tc.insert(QStringLiteral("function"), fn);
                return delta({{QStringLiteral("tool_calls"), QJsonArray{tc}}});
            };
            chunks << fragment(argsA, true) << fragment(argsB, false);
        }
        if (cutBeforeEnd)
            return ScriptedResponse::sse(chunks);
        chunks << delta({}, call ? QStringLiteral("tool_calls") : QStringLiteral("stop"));
        chunks << sseData(compactJson({{QStringLiteral("choices"), QJsonArray()},
                                       {QStringLiteral("usage"), openAiUsage(120, 30)}}));
        chunks << QByteArray("data: [DONE]\n\n");
        return ScriptedResponse::sse(chunks);
    }
    chunks << sseEvent(
        "message_start",
        compactJson({{QStringLiteral("type"), QStringLiteral("message_start")},
                     {QStringLiteral("message"),
                      QJsonObject{{QStringLiteral("id"), QStringLiteral("msg")},
                                  {QStringLiteral("type"), QStringLiteral("message")},
                                  {QStringLiteral("role"), QStringLiteral("assistant")},
                                  {QStringLiteral("model"), QStringLiteral("coder")},
                                  {QStringLiteral("content"), QJsonArray()},
                                  {QStringLiteral("usage"), anthropicUsage(120, 1)}}}}));
    int index = 0;
    if (!textPieces.isEmpty()) {
        chunks << sseEvent(
            "content_block_start",
            compactJson({{QStringLiteral("type"), QStringLiteral("content_block_start")},
                         {QStringLiteral("index"), index},
                         {QStringLiteral("content_block"),
                          QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                      {QStringLiteral("text"), QString()}}}}));
        for (const auto& piece : textPieces)
            chunks << sseEvent(
                "content_block_delta",
                compactJson({{QStringLiteral("type"), QStringLiteral("content_block_delta")},
                             {QStringLiteral("index"), index},
                             {QStringLiteral("delta"),
                              QJsonObject{{QStringLiteral("type"), QStringLiteral("text_delta")},
                                          {QStringLiteral("text"), piece}}}}));
        chunks << sseEvent(
            "content_block_stop",
            compactJson({{QStringLiteral("type"), QStringLiteral("content_block_stop")},
                         {QStringLiteral("index"), index}}));
        ++index;
    }
    if (call) {
        chunks << sseEvent(
            "content_block_start",
            compactJson({{QStringLiteral("type"), QStringLiteral("content_block_start")},
                         {QStringLiteral("index"), index},
                         {QStringLiteral("content_block"),
                          QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                      {QStringLiteral("id"), call->id},
                                      {QStringLiteral("name"), call->name},
                                      {QStringLiteral("input"), QJsonObject()}}}}));
        for (const QByteArray& part : {argsA, argsB})
            chunks << sseEvent(
                "content_block_delta",
                compactJson(
                    {{QStringLiteral("type"), QStringLiteral("content_block_delta")},
                     {QStringLiteral("index"), index},
                     {QStringLiteral("delta"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("input_json_delta")},
                                  {QStringLiteral("partial_json"), QString::fromUtf8(part)}}}}));
        chunks << sseEvent(
            "content_block_stop",
            compactJson({{QStringLiteral("type"), QStringLiteral("content_block_stop")},
                         {QStringLiteral("index"), index}}));
    }
    if (cutBeforeEnd)
        return ScriptedResponse::sse(chunks);
    chunks << sseEvent(
        "message_delta",
        compactJson(
            {{QStringLiteral("type"), QStringLiteral("message_delta")},
             {QStringLiteral("delta"),
              QJsonObject{{QStringLiteral("stop_reason"),
                           call ? QStringLiteral("tool_use") : QStringLiteral("end_turn")}}},
             {QStringLiteral("usage"), QJsonObject{{QStringLiteral("output_tokens"), 30}}}}));
    chunks << sseEvent("message_stop",
                       compactJson({{QStringLiteral("type"), QStringLiteral("message_stop")}}));
    return ScriptedResponse::sse(chunks);
}

// A candidate for the scripted harness (tests/engine/fakeresources): it does what `script` says.
inline QString scriptedCandidate(const QString& script) {
    return QStringLiteral("# SCRIPT: %1\nclass ModelNew:\n    pass\n").arg(script);
}

inline QString fenced(const QString& code) {
    return QStringLiteral("Here is my kernel.\n```python\n%1```\n").arg(code);
}

} // namespace kb::test

Q_DECLARE_METATYPE(kb::test::ScriptedResponse)
Q_DECLARE_METATYPE(kb::test::Wire)
