// The Anthropic Messages client against the fake server: tool_use over two turns, the SSE
// event sequence with thinking and input_json fragments split across TCP writes, cache usage,
// refusal and pause_turn, an error event mid-stream, 529 then success, model listing.
#include "providertestsupport.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace kb;
using engine::ChatMessage;
using test::FakeProviderServer;
using test::ScriptedResponse;
using test::sseEvent;

namespace {
engine::ChatRequest request(bool stream = false) {
    engine::ChatRequest r;
    r.model = QStringLiteral("claude-test");
    r.maxTokens = 1024;
    r.stream = stream;
    r.messages = {ChatMessage::system(QStringLiteral("You optimise kernels.")),
                  ChatMessage::user(QStringLiteral("Speed up a.py"))};
    r.tools = {{QStringLiteral("read_file"), QStringLiteral("Read a file"),
                QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}};
    return r;
}

QByteArray message(const QByteArray& content, const QByteArray& stop,
                   const QByteArray& usage = R"({"input_tokens":10,"output_tokens":5})") {
    return R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":)" +
           content + R"(,"stop_reason":")" + stop + R"(","usage":)" + usage + "}";
}
} // namespace

class TestAnthropicClient : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<engine::ChatResponse>();
        qRegisterMetaType<engine::ProviderError>();
    }

    void toolUseOverTwoTurns() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            200,
            message(
                R"([{"type":"text","text":"Let me read it."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.py"}}])",
                "tool_use",
                R"({"input_tokens":20,"output_tokens":30,"cache_creation_input_tokens":500,"cache_read_input_tokens":0})")));
        server.enqueue(ScriptedResponse::json(
            200,
            message(
                R"([{"type":"text","text":"Fused."}])", "end_turn",
                R"({"input_tokens":40,"output_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":500})")));
        auto cfg = test::configFor(server, engine::ProviderKind::Anthropic);
        cfg.prices.set(QStringLiteral("claude-test"), {3.0, 15.0, 0.3, 3.75});
        engine::ChatProvider provider(cfg);
        QCOMPARE(provider.kind(), QStringLiteral("anthropic"));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        auto req = request();
        provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        const auto r1 = done.at(0).at(1).value<engine::ChatResponse>();
        QCOMPARE(r1.stopReason, engine::StopReason::ToolUse);
        QCOMPARE(r1.content, QStringLiteral("Let me read it."));
        QCOMPARE(r1.toolCalls.at(0).id, QStringLiteral("toolu_1"));
        QCOMPARE(r1.usage, (engine::TokenUsage{520, 30, 0, 500}));
        QVERIFY(qFuzzyCompare(r1.costUsd.value_or(-1), (20 * 3.0 + 500 * 3.75 + 30 * 15.0) / 1e6));

        req.messages.append(ChatMessage::fromResponse(r1));
        req.messages.append(ChatMessage::toolResult(QStringLiteral("toolu_1"),
                                                    QStringLiteral("no such file"), true));
        provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 5000);
        const auto r2 = done.at(1).at(1).value<engine::ChatResponse>();
        QCOMPARE(r2.content, QStringLiteral("Fused."));
        QCOMPARE(r2.usage.cacheReadTokens, qint64(500));

        const auto& wire = server.requests().at(1);
        QCOMPARE(wire.path, QByteArray("/v1/messages"));
        QCOMPARE(wire.header("x-api-key"), test::kApiKey.toUtf8());
        QCOMPARE(wire.header("anthropic-version"), QByteArray("2023-06-01"));
        QVERIFY(wire.header("authorization").isEmpty());
        const auto body = wire.json();
        QCOMPARE(body.value(QStringLiteral("system")).toString(),
                 QStringLiteral("You optimise kernels."));
        const auto msgs = body.value(QStringLiteral("messages")).toArray();
        QCOMPARE(msgs.size(), 3);
        const auto use =
            msgs.at(1).toObject().value(QStringLiteral("content")).toArray().at(1).toObject();
        QCOMPARE(use.value(QStringLiteral("type")).toString(), QStringLiteral("tool_use"));
        QCOMPARE(
            use.value(QStringLiteral("input")).toObject().value(QStringLiteral("path")).toString(),
            QStringLiteral("a.py"));
        const auto result =
            msgs.at(2).toObject().value(QStringLiteral("content")).toArray().at(0).toObject();
        QCOMPARE(result.value(QStringLiteral("type")).toString(), QStringLiteral("tool_result"));
        QCOMPARE(result.value(QStringLiteral("tool_use_id")).toString(), QStringLiteral("toolu_1"));
        QCOMPARE(result.value(QStringLiteral("is_error")).toBool(), true);
        QVERIFY(!test::containsKey(r1));
        QVERIFY(!test::containsKey(r2));
    }

    void streamedEventsWithFragments() {
        FakeProviderServer server;
        const QByteArray json1 = sseEvent(
            "content_block_delta",
            R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\u0022path\u0022: \u0022k"}})");
        const QByteArray json2 = sseEvent(
            "content_block_delta",
            R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".cu\u0022}"}})");
        const QByteArray both = json1 + json2;
        server.enqueue(ScriptedResponse::sse({
            sseEvent(
                "message_start",
                R"({"type":"message_start","message":{"id":"msg_s","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":100,"cache_creation_input_tokens":0,"output_tokens":1}}})"),
            sseEvent(
                "content_block_start",
                R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"),
            sseEvent(
                "content_block_delta",
                R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Plan."}})"),
            sseEvent(
                "content_block_delta",
                R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}})") +
                sseEvent("content_block_stop", R"({"type":"content_block_stop","index":0})"),
            "event: ping\ndata: {\"type\": \"ping\"}\n\n",
            sseEvent(
                "content_block_start",
                R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})"),
            sseEvent(
                "content_block_delta",
                R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading "}})"),
            sseEvent(
                "content_block_delta",
                R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"k.cu"}})"),
            sseEvent("content_block_stop", R"({"type":"content_block_stop","index":1})"),
            sseEvent(
                "content_block_start",
                R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_9","name":"read_file","input":{}}})"),
            both.left(json1.size() - 10), // the event boundary falls inside a write
            both.mid(json1.size() - 10),
            sseEvent("content_block_stop", R"({"type":"content_block_stop","index":2})"),
            sseEvent(
                "message_delta",
                R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":77}})"),
            sseEvent("message_stop", R"({"type":"message_stop"})"),
        }));
        engine::ChatProvider provider(test::configFor(server, engine::ProviderKind::Anthropic));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        QSignalSpy deltas(&provider, &engine::ChatClient::streamDelta);
        QSignalSpy thinking(&provider, &engine::ChatClient::reasoningDelta);
        provider.send(request(true));
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        const auto r = done.at(0).at(1).value<engine::ChatResponse>();
        QCOMPARE(deltas.size(), 2);
        QCOMPARE(thinking.size(), 1);
        QCOMPARE(r.content, QStringLiteral("Reading k.cu"));
        QCOMPARE(r.reasoning, QStringLiteral("Plan."));
        QCOMPARE(r.reasoningSignature, QStringLiteral("EqQB"));
        QCOMPARE(r.toolCalls.size(), 1);
        QCOMPARE(r.toolCalls.at(0).arguments().value(QStringLiteral("path")).toString(),
                 QStringLiteral("k.cu"));
        QCOMPARE(r.stopReason, engine::StopReason::ToolUse);
        QCOMPARE(r.usage, (engine::TokenUsage{125, 77, 100, 0}));
        QCOMPARE(server.requests().at(0).json().value(QStringLiteral("stream")).toBool(), true);
        QVERIFY(!test::containsKey(r));
    }

    void refusalAndPauseTurn_data() {
        QTest::addColumn<QByteArray>("stop");
        QTest::addColumn<engine::StopReason>("expected");
        QTest::newRow("refusal") << QByteArray("refusal") << engine::StopReason::Refusal;
        QTest::newRow("pause_turn") << QByteArray("pause_turn") << engine::StopReason::PauseTurn;
        QTest::newRow("max_tokens") << QByteArray("max_tokens") << engine::StopReason::MaxTokens;
    }
    void refusalAndPauseTurn() {
        QFETCH(QByteArray, stop);
        QFETCH(engine::StopReason, expected);
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, message(R"([])", stop)));
        engine::ChatProvider provider(test::configFor(server, engine::ProviderKind::Anthropic));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        provider.send(request());
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        const auto r = done.at(0).at(1).value<engine::ChatResponse>();
        QCOMPARE(r.stopReason, expected);
        QCOMPARE(r.providerStopReason, QString::fromLatin1(stop));
    }

    void errorEventMidStream() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::sse({
            sseEvent(
                "message_start",
                R"({"type":"message_start","message":{"id":"m","model":"claude-test","usage":{"input_tokens":1,"output_tokens":1}}})"),
            sseEvent(
                "error",
                R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"),
        }));
        engine::ChatProvider provider(test::configFor(server, engine::ProviderKind::Anthropic));
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(request(true));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = failed.at(0).at(1).value<engine::ProviderError>();
        QVERIFY2(e.message.contains(QStringLiteral("Overloaded")), qPrintable(e.message));
        QVERIFY(e.transient);
        QCOMPARE(e.providerType, QStringLiteral("overloaded_error"));
    }

    void overloaded529ThenSuccess() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"));
        server.enqueue(
            ScriptedResponse::json(200, message(R"([{"type":"text","text":"hi"}])", "end_turn")));
        engine::ChatProvider provider(test::configFor(server, engine::ProviderKind::Anthropic));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        QSignalSpy retrying(&provider, &engine::ChatProvider::retrying);
        provider.send(request());
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        QCOMPARE(retrying.size(), 1);
        QVERIFY(retrying.at(0).at(3).value<engine::ProviderError>().message.contains(
            QStringLiteral("HTTP 529")));
        QCOMPARE(done.at(0).at(1).value<engine::ChatResponse>().attempts, 2);
        QCOMPARE(server.requests().size(), 2);
    }

    void listModels() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            200,
            R"({"data":[{"type":"model","id":"claude-test","display_name":"Claude Test"}],"has_more":false})"));
        engine::ChatProvider provider(test::configFor(server, engine::ProviderKind::Anthropic));
        QSignalSpy listed(&provider, &engine::ChatProvider::modelsListed);
        provider.listModels();
        QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, 5000);
        const auto models = listed.at(0).at(1).value<QList<engine::ModelInfo>>();
        QCOMPARE(models.size(), 1);
        QCOMPARE(models.at(0).displayName, QStringLiteral("Claude Test"));
        QVERIFY(server.requests().at(0).path.startsWith("/v1/models"));
        QCOMPARE(server.requests().at(0).header("x-api-key"), test::kApiKey.toUtf8());
    }
};

QTEST_GUILESS_MAIN(TestAnthropicClient)
#include "tst_anthropicclient.moc"
