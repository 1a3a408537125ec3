// The wire formats without a network: request encoding, non-streamed decoding, stream
// aggregation, stop reasons, error bodies, the transcript format.
#include "providers/anthropicprotocol.h"
#include "providers/anthropicstream.h"
#include "providers/openaiprotocol.h"
#include "providers/openaistream.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace kb;
using engine::ChatMessage;
using engine::StopReason;

namespace {

engine::ChatRequest toolConversation() {
    engine::ChatRequest r;
    r.model = QStringLiteral("m1");
    r.maxTokens = 256;
    r.temperature = 0.5;
    r.tools = {{QStringLiteral("read_file"), QStringLiteral("Reads a file"),
                QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}};
    r.toolChoice.mode = engine::ToolChoice::Required;
    r.messages.append(ChatMessage::system(QStringLiteral("be fast")));
    r.messages.append(ChatMessage::user(QStringLiteral("look at a.py")));
    ChatMessage call = ChatMessage::assistant(QString());
    call.toolCalls = {{QStringLiteral("call_1"), QStringLiteral("read_file"),
                       QStringLiteral(R"({"path":"a.py"})")}};
    call.reasoning = QStringLiteral("I should read it");
    call.reasoningSignature = QStringLiteral("sig==");
    r.messages.append(call);
    r.messages.append(
        ChatMessage::toolResult(QStringLiteral("call_1"), QStringLiteral("print(1)")));
    r.messages.append(ChatMessage::user(QStringLiteral("now improve it")));
    return r;
}

QJsonObject obj(const QByteArray& json) {
    return QJsonDocument::fromJson(json).object();
}

engine::SseEvent ev(const QByteArray& data, const QByteArray& event = {}) {
    return {event, data, {}};
}

} // namespace

class TestProtocols : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void openAiEncodesMessagesToolsAndStreamOptions() {
        engine::OpenAiProtocol p;
        auto req = toolConversation();
        req.stream = true;
        req.extraBody.insert(QStringLiteral("top_p"), 0.9);
        const auto spec = p.chatRequest(req, QStringLiteral("sk-abc123"));
        QCOMPARE(spec.path, QStringLiteral("chat/completions"));
        QVERIFY(spec.streamBody);
        QVERIFY(spec.headers.contains(
            qMakePair(QByteArray("Authorization"), QByteArray("Bearer sk-abc123"))));
        QVERIFY(!spec.body.contains("sk-abc123"));
        const auto body = obj(spec.body);
        QCOMPARE(body.value(QStringLiteral("model")).toString(), QStringLiteral("m1"));
        QCOMPARE(body.value(QStringLiteral("max_tokens")).toInt(), 256);
        QCOMPARE(body.value(QStringLiteral("temperature")).toDouble(), 0.5);
        QCOMPARE(body.value(QStringLiteral("top_p")).toDouble(), 0.9);
        QCOMPARE(body.value(QStringLiteral("stream_options"))
                     .toObject()
                     .value(QStringLiteral("include_usage"))
                     .toBool(),
                 true);
        QCOMPARE(body.value(QStringLiteral("tool_choice")).toString(), QStringLiteral("required"));
        const auto tool = body.value(QStringLiteral("tools")).toArray().at(0).toObject();
        QCOMPARE(tool.value(QStringLiteral("type")).toString(), QStringLiteral("function"));
        QCOMPARE(tool.value(QStringLiteral("function"))
                     .toObject()
                     .value(QStringLiteral("name"))
                     .toString(),
                 QStringLiteral("read_file"));
        const auto msgs = body.value(QStringLiteral("messages")).toArray();
        QCOMPARE(msgs.size(), 5);
        QCOMPARE(msgs.at(0).toObject().value(QStringLiteral("role")).toString(),
                 QStringLiteral("system"));
        const auto asst = msgs.at(2).toObject();
        QVERIFY(asst.value(QStringLiteral("content")).isNull());
        const auto fn = asst.value(QStringLiteral("tool_calls")).toArray().at(0).toObject();
        QCOMPARE(fn.value(QStringLiteral("id")).toString(), QStringLiteral("call_1"));
        QCOMPARE(fn.value(QStringLiteral("function"))
                     .toObject()
                     .value(QStringLiteral("arguments"))
                     .toString(),
                 QStringLiteral(R"({"path":"a.py"})"));
        const auto tres = msgs.at(3).toObject();
        QCOMPARE(tres.value(QStringLiteral("role")).toString(), QStringLiteral("tool"));
        QCOMPARE(tres.value(QStringLiteral("tool_call_id")).toString(), QStringLiteral("call_1"));

        engine::ChatRequest plain;
        plain.messages = {ChatMessage::user(QStringLiteral("hi"))};
        const auto b2 = obj(p.chatRequest(plain, QString()).body);
        QVERIFY(!b2.contains(QStringLiteral("tools")));
        QVERIFY(!b2.contains(QStringLiteral("tool_choice")));
        QVERIFY(!b2.contains(QStringLiteral("stream_options")));
        QVERIFY(!b2.contains(QStringLiteral("temperature")));
        QVERIFY(p.chatRequest(plain, QString()).headers.size() == 1); // no Authorization
        engine::ChatRequest named = plain;
        named.tools = req.tools;
        named.toolChoice = {engine::ToolChoice::Named, QStringLiteral("read_file")};
        QCOMPARE(obj(p.chatRequest(named, QString()).body)
                     .value(QStringLiteral("tool_choice"))
                     .toObject()
                     .value(QStringLiteral("function"))
                     .toObject()
                     .value(QStringLiteral("name"))
                     .toString(),
                 QStringLiteral("read_file"));
    }

    void anthropicEncodesSystemBlocksAndHeaders() {
        engine::AnthropicProtocol p;
        const auto spec = p.chatRequest(toolConversation(), QStringLiteral("ak-secret"));
        QCOMPARE(spec.path, QStringLiteral("v1/messages"));
        QVERIFY(spec.headers.contains(qMakePair(QByteArray("x-api-key"), QByteArray("ak-secret"))));
        QVERIFY(spec.headers.contains(
            qMakePair(QByteArray("anthropic-version"), QByteArray("2023-06-01"))));
        const auto body = obj(spec.body);
        QCOMPARE(body.value(QStringLiteral("system")).toString(), QStringLiteral("be fast"));
        QCOMPARE(body.value(QStringLiteral("tool_choice"))
                     .toObject()
                     .value(QStringLiteral("type"))
                     .toString(),
                 QStringLiteral("any"));
        QCOMPARE(body.value(QStringLiteral("tools"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("input_schema"))
                     .toObject()
                     .value(QStringLiteral("type"))
                     .toString(),
                 QStringLiteral("object"));
        const auto msgs = body.value(QStringLiteral("messages")).toArray();
        QCOMPARE(msgs.size(), 3); // user, assistant, user(tool_result + text)
        QCOMPARE(msgs.at(0).toObject().value(QStringLiteral("content")).toString(),
                 QStringLiteral("look at a.py"));
        const auto asst = msgs.at(1).toObject().value(QStringLiteral("content")).toArray();
        QCOMPARE(asst.size(), 2);
        QCOMPARE(asst.at(0).toObject().value(QStringLiteral("type")).toString(),
                 QStringLiteral("thinking"));
        QCOMPARE(asst.at(0).toObject().value(QStringLiteral("signature")).toString(),
                 QStringLiteral("sig=="));
        QCOMPARE(asst.at(1).toObject().value(QStringLiteral("type")).toString(),
                 QStringLiteral("tool_use"));
        QCOMPARE(asst.at(1)
                     .toObject()
                     .value(QStringLiteral("input"))
                     .toObject()
                     .value(QStringLiteral("path"))
                     .toString(),
                 QStringLiteral("a.py"));
        const auto last = msgs.at(2).toObject();
        QCOMPARE(last.value(QStringLiteral("role")).toString(), QStringLiteral("user"));
        const auto blocks = last.value(QStringLiteral("content")).toArray();
        QCOMPARE(blocks.size(), 2);
        QCOMPARE(blocks.at(0).toObject().value(QStringLiteral("type")).toString(),
                 QStringLiteral("tool_result"));
        QCOMPARE(blocks.at(0).toObject().value(QStringLiteral("tool_use_id")).toString(),
                 QStringLiteral("call_1"));
        QCOMPARE(blocks.at(1).toObject().value(QStringLiteral("text")).toString(),
                 QStringLiteral("now improve it"));
        QVERIFY(!body.contains(QStringLiteral("stream")));
    }

    void openAiDecodesToolCallsReasoningUsage() {
        engine::OpenAiProtocol p;
        engine::ChatResponse r;
        engine::ProviderError e;
        const QByteArray body =
            R"({"id":"c1","model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":null,
            "reasoning_content":"think","tool_calls":[{"id":"t1","type":"function","function":{"name":"grep","arguments":"{\u0022q\u0022:\u0022x\u0022}"}}]},
            "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":60}}})";
        QVERIFY(p.decodeChat(body, &r, &e));
        QCOMPARE(r.id, QStringLiteral("c1"));
        QCOMPARE(r.reasoning, QStringLiteral("think"));
        QCOMPARE(r.toolCalls.size(), 1);
        QCOMPARE(r.toolCalls.at(0).arguments().value(QStringLiteral("q")).toString(),
                 QStringLiteral("x"));
        QCOMPARE(r.stopReason, StopReason::ToolUse);
        QCOMPARE(r.usage, (engine::TokenUsage{100, 20, 60, 0}));

        QVERIFY(p.decodeChat(
            R"({"choices":[{"message":{"content":null,"refusal":"I cannot help"},"finish_reason":"stop"}]})",
            &r, &e));
        QCOMPARE(r.stopReason, StopReason::Refusal);
        QCOMPARE(r.refusal, QStringLiteral("I cannot help"));

        QVERIFY(!p.decodeChat("{\"choices\": [", &r, &e));
        QVERIFY2(e.message.contains(QStringLiteral("not valid JSON")), qPrintable(e.message));
        QVERIFY(!p.decodeChat(R"({"error":{"message":"upstream down","type":"server_error"}})", &r,
                              &e));
        QVERIFY(e.message.contains(QStringLiteral("upstream down")));
    }

    void anthropicDecodesBlocksAndCacheUsage() {
        engine::AnthropicProtocol p;
        engine::ChatResponse r;
        engine::ProviderError e;
        const QByteArray body =
            R"({"id":"msg_1","type":"message","model":"c","content":[{"type":"thinking","thinking":"hmm","signature":"s1"},
            {"type":"text","text":"Let me look."},{"type":"tool_use","id":"tu_1","name":"read_file","input":{"path":"a.py"}}],
            "stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}})";
        QVERIFY(p.decodeChat(body, &r, &e));
        QCOMPARE(r.content, QStringLiteral("Let me look."));
        QCOMPARE(r.reasoning, QStringLiteral("hmm"));
        QCOMPARE(r.reasoningSignature, QStringLiteral("s1"));
        QCOMPARE(r.toolCalls.at(0).name, QStringLiteral("read_file"));
        QCOMPARE(r.toolCalls.at(0).arguments().value(QStringLiteral("path")).toString(),
                 QStringLiteral("a.py"));
        QCOMPARE(r.stopReason, StopReason::ToolUse);
        QCOMPARE(r.usage, (engine::TokenUsage{1110, 5, 1000, 100}));
        QVERIFY(!p.decodeChat(
            R"({"type":"error","error":{"type":"invalid_request_error","message":"bad field"}})",
            &r, &e));
        QVERIFY(e.message.contains(QStringLiteral("bad field")));
        QCOMPARE(e.providerType, QStringLiteral("invalid_request_error"));
    }

    void stopReasons_data() {
        QTest::addColumn<bool>("anthropic");
        QTest::addColumn<QString>("raw");
        QTest::addColumn<StopReason>("expected");
        QTest::newRow("oa stop") << false << "stop" << StopReason::EndTurn;
        QTest::newRow("oa length") << false << "length" << StopReason::MaxTokens;
        QTest::newRow("oa tool_calls") << false << "tool_calls" << StopReason::ToolUse;
        QTest::newRow("oa content_filter")
            << false << "content_filter" << StopReason::ContentFilter;
        QTest::newRow("an end_turn") << true << "end_turn" << StopReason::EndTurn;
        QTest::newRow("an stop_sequence") << true << "stop_sequence" << StopReason::EndTurn;
        QTest::newRow("an max_tokens") << true << "max_tokens" << StopReason::MaxTokens;
        QTest::newRow("an tool_use") << true << "tool_use" << StopReason::ToolUse;
        QTest::newRow("an refusal") << true << "refusal" << StopReason::Refusal;
        QTest::newRow("an pause_turn") << true << "pause_turn" << StopReason::PauseTurn;
    }
    void stopReasons() {
        QFETCH(bool, anthropic);
        QFETCH(QString, raw);
        QFETCH(StopReason, expected);
        QCOMPARE(anthropic ? engine::AnthropicProtocol::mapStopReason(raw)
                           : engine::OpenAiProtocol::mapFinishReason(raw),
                 expected);
        QCOMPARE(engine::stopReasonFromName(engine::stopReasonName(expected)), expected);
    }

    void openAiStreamJoinsFragmentsByIndex() {
        engine::OpenAiStreamAggregator a;
        QString text, reasoning;
        const QList<QByteArray> chunks{
            R"({"id":"s1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Let me "}}]})",
            R"({"choices":[{"index":0,"delta":{"reasoning":"think."}}]})",
            R"({"choices":[{"index":0,"delta":{"content":"Calling "}}]})",
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":""}}]}}]})",
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"grep","arguments":"{\u0022q\u0022:"}}]}}]})",
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\u0022pa"}}]}}]})",
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\u0022:\u0022a.py\u0022}"}}]}}]})",
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\u0022x\u0022}"}}]}}]})",
            R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
            R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":9}})",
        };
        for (const auto& c : chunks) {
            const auto step = a.feed(ev(c));
            text += step.text;
            reasoning += step.reasoning;
            QVERIFY(a.error().message.isEmpty());
        }
        QVERIFY(a.isComplete()); // finish_reason seen
        a.feed(ev("[DONE]"));
        const auto r = a.result();
        QCOMPARE(text, QStringLiteral("Calling "));
        QCOMPARE(reasoning, QStringLiteral("Let me think."));
        QCOMPARE(r.reasoning, reasoning);
        QCOMPARE(r.toolCalls.size(), 2);
        QCOMPARE(r.toolCalls.at(0).id, QStringLiteral("a"));
        QCOMPARE(r.toolCalls.at(0).argumentsJson, QStringLiteral(R"({"path":"a.py"})"));
        QCOMPARE(r.toolCalls.at(1).name, QStringLiteral("grep"));
        QCOMPARE(r.toolCalls.at(1).argumentsJson, QStringLiteral(R"({"q":"x"})"));
        QCOMPARE(r.stopReason, StopReason::ToolUse);
        QCOMPARE(r.usage.inputTokens, qint64(7));
        QCOMPARE(r.usage.outputTokens, qint64(9));
        QCOMPARE(r.id, QStringLiteral("s1"));
    }

    void openAiStreamErrorsAndRefusal() {
        engine::OpenAiStreamAggregator bad;
        bad.feed(ev("{not json"));
        QVERIFY(bad.error().message.contains(QStringLiteral("not valid JSON")));
        engine::OpenAiStreamAggregator err;
        err.feed(ev(R"({"error":{"message":"provider overloaded"}})"));
        QVERIFY(err.error().message.contains(QStringLiteral("provider overloaded")));
        QVERIFY(err.error().transient);
        engine::OpenAiStreamAggregator ref;
        ref.feed(ev(R"({"choices":[{"delta":{"refusal":"No."},"finish_reason":"stop"}]})"));
        QCOMPARE(ref.result().stopReason, StopReason::Refusal);
        engine::OpenAiStreamAggregator open;
        open.feed(ev(R"({"choices":[{"delta":{"content":"par"}}]})"));
        QVERIFY(!open.isComplete());
    }

    void anthropicStreamJoinsBlocks() {
        engine::AnthropicStreamAggregator a;
        QString text, reasoning;
        const QList<QPair<QByteArray, QByteArray>> events{
            {"message_start",
             R"({"type":"message_start","message":{"id":"msg_1","model":"c","usage":{"input_tokens":12,"cache_read_input_tokens":100,"cache_creation_input_tokens":0,"output_tokens":1}}})"},
            {"content_block_start",
             R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"},
            {"content_block_delta",
             R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Plan: "}})"},
            {"content_block_delta",
             R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"read."}})"},
            {"content_block_delta",
             R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG"}})"},
            {"content_block_stop", R"({"type":"content_block_stop","index":0})"},
            {"ping", R"({"type":"ping"})"},
            {"content_block_start",
             R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})"},
            {"content_block_delta",
             R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading"}})"},
            {"content_block_stop", R"({"type":"content_block_stop","index":1})"},
            {"content_block_start",
             R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"tu_1","name":"read_file","input":{}}})"},
            {"content_block_delta",
             R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}})"},
            {"content_block_delta",
             R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\u0022path\u0022: \u0022a"}})"},
            {"content_block_delta",
             R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".py\u0022}"}})"},
            {"content_block_stop", R"({"type":"content_block_stop","index":2})"},
            {"message_delta",
             R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}})"},
        };
        for (const auto& [name, data] : events) {
            const auto step = a.feed(ev(data, name));
            text += step.text;
            reasoning += step.reasoning;
        }
        QVERIFY(!a.isComplete());
        a.feed(ev(R"({"type":"message_stop"})", "message_stop"));
        QVERIFY(a.isComplete());
        const auto r = a.result();
        QCOMPARE(text, QStringLiteral("Reading"));
        QCOMPARE(reasoning, QStringLiteral("Plan: read."));
        QCOMPARE(r.content, text);
        QCOMPARE(r.reasoningSignature, QStringLiteral("SIG"));
        QCOMPARE(r.toolCalls.size(), 1);
        QCOMPARE(r.toolCalls.at(0).arguments().value(QStringLiteral("path")).toString(),
                 QStringLiteral("a.py"));
        QCOMPARE(r.stopReason, StopReason::ToolUse);
        QCOMPARE(r.usage, (engine::TokenUsage{112, 42, 100, 0}));
    }

    void anthropicStreamErrorEvent() {
        engine::AnthropicStreamAggregator a;
        a.feed(ev(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})",
                  "error"));
        QVERIFY(a.error().message.contains(QStringLiteral("Overloaded")));
        QVERIFY(a.error().transient);
        QCOMPARE(a.error().providerType, QStringLiteral("overloaded_error"));
    }

    void errorBodies_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("message");
        QTest::newRow("openai")
            << QByteArray(R"({"error":{"message":"Invalid key","type":"invalid_request_error"}})")
            << "Invalid key";
        QTest::newRow("anthropic")
            << QByteArray(
                   R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})")
            << "invalid x-api-key";
        QTest::newRow("vllm") << QByteArray(R"({"object":"error","message":"model not found"})")
                              << "model not found";
        QTest::newRow("fastapi") << QByteArray(R"({"detail":"Not Found"})") << "Not Found";
        QTest::newRow("string error") << QByteArray(R"({"error":"bad"})") << "bad";
        QTest::newRow("plain text")
            << QByteArray("upstream connect error\n") << "upstream connect error";
        QTest::newRow("html") << QByteArray("<html><body>502</body></html>") << QString();
        QTest::newRow("malformed") << QByteArray("{\"error\": ") << "{\"error\":";
    }
    void errorBodies() {
        QFETCH(QByteArray, body);
        QFETCH(QString, message);
        QCOMPARE(engine::parseErrorBody(body).message, message);
    }

    void transcriptRoundTrip() {
        engine::ChatResponse r;
        r.id = QStringLiteral("x");
        r.content = QStringLiteral("hello");
        r.toolCalls = {{QStringLiteral("t"), QStringLiteral("grep"), QStringLiteral("{}")}};
        r.stopReason = StopReason::ToolUse;
        r.usage = {10, 2, 3, 4};
        r.costUsd = 0.25;
        r.raw = "{\"raw\":true}";
        const QByteArray json = QJsonDocument(engine::transcriptToJson({r, r})).toJson();
        QString err;
        const auto back = engine::transcriptFromJson(json, &err);
        QVERIFY2(back, qPrintable(err));
        QCOMPARE(back->size(), 2);
        QCOMPARE(back->at(1).content, r.content);
        QCOMPARE(back->at(1).toolCalls, r.toolCalls);
        QCOMPARE(back->at(1).usage, r.usage);
        QCOMPARE(back->at(1).costUsd, r.costUsd);
        QCOMPARE(back->at(1).raw, r.raw);
        QVERIFY(!engine::transcriptFromJson("[{\"stop_reason\":\"bogus\"}]", &err));
        QVERIFY(err.contains(QStringLiteral("turn 1")));
        QVERIFY(!engine::transcriptFromJson("{oops", &err));
        QVERIFY(err.contains(QStringLiteral("not valid JSON")));
    }

    void invalidToolArgumentsAreReportedNotFatal() {
        const engine::ToolCall c{QStringLiteral("1"), QStringLiteral("edit"),
                                 QStringLiteral("{\"path\": ")};
        QString err;
        QVERIFY(c.arguments(&err).isEmpty());
        QVERIFY(err.contains(QStringLiteral("not valid JSON")));
    }
};

QTEST_GUILESS_MAIN(TestProtocols)
#include "tst_protocols.moc"
