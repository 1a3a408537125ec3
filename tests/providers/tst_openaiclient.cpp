// The OpenAI-compatible client against the fake server: multi-turn tool calls, streaming with
// fragments split across TCP writes, refusals, a cut stream, malformed JSON, model listing and
// the connection test. The key travels on the wire and nowhere else.
#include "providertestsupport.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace kb;
using engine::ChatMessage;
using test::FakeProviderServer;
using test::ScriptedResponse;
using test::sseData;

namespace {
engine::ChatRequest agentRequest() {
    engine::ChatRequest r;
    r.model = QStringLiteral("qwen-coder");
    r.messages = {ChatMessage::system(QStringLiteral("You optimise kernels.")),
                  ChatMessage::user(QStringLiteral("Speed up a.py"))};
    r.tools = {{QStringLiteral("read_file"), QStringLiteral("Read a file"),
                QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}};
    return r;
}
} // namespace

class TestOpenAiClient : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<engine::ChatResponse>();
        qRegisterMetaType<engine::ProviderError>();
    }

    void toolCallsOverSeveralTurns() {
        FakeProviderServer server;
        server.enqueue(
            ScriptedResponse::json(200, R"({"id":"c1","model":"qwen-coder","choices":[{"index":0,
            "message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_A","type":"function",
            "function":{"name":"read_file","arguments":"{\u0022path\u0022:\u0022a.py\u0022}"}}]},"finish_reason":"tool_calls"}],
            "usage":{"prompt_tokens":1000,"completion_tokens":50}})"));
        server.enqueue(
            ScriptedResponse::json(200, R"({"id":"c2","model":"qwen-coder","choices":[{"index":0,
            "message":{"role":"assistant","content":"Done: fused the loops."},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":1200,"completion_tokens":80,"prompt_tokens_details":{"cached_tokens":1000}}})"));
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.prices.set(QStringLiteral("qwen-coder"), {1.0, 2.0, 0.5, {}});
        test::LogCapture log;
        engine::ChatProvider provider(cfg);
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);

        auto req = agentRequest();
        const quint64 id1 = provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        QCOMPARE(done.at(0).at(0).toULongLong(), id1);
        const auto r1 = done.at(0).at(1).value<engine::ChatResponse>();
        QCOMPARE(r1.stopReason, engine::StopReason::ToolUse);
        QCOMPARE(r1.toolCalls.size(), 1);
        QCOMPARE(r1.toolCalls.at(0).arguments().value(QStringLiteral("path")).toString(),
                 QStringLiteral("a.py"));
        QVERIFY(qFuzzyCompare(r1.costUsd.value_or(-1), (1000 * 1.0 + 50 * 2.0) / 1e6));
        QVERIFY(r1.latencyMs > 0);

        req.messages.append(ChatMessage::fromResponse(r1));
        req.messages.append(
            ChatMessage::toolResult(QStringLiteral("call_A"), QStringLiteral("import torch")));
        provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 5000);
        const auto r2 = done.at(1).at(1).value<engine::ChatResponse>();
        QCOMPARE(r2.content, QStringLiteral("Done: fused the loops."));
        QCOMPARE(r2.stopReason, engine::StopReason::EndTurn);
        QCOMPARE(r2.usage.cacheReadTokens, qint64(1000));
        QVERIFY(qFuzzyCompare(r2.costUsd.value_or(-1), (200 * 1.0 + 1000 * 0.5 + 80 * 2.0) / 1e6));
        QCOMPARE(failed.size(), 0);
        QCOMPARE(provider.totalUsage().outputTokens, qint64(130));

        // What went over the wire.
        QCOMPARE(server.requests().size(), 2);
        const auto& wire = server.requests().at(1);
        QCOMPARE(wire.method, QByteArray("POST"));
        QCOMPARE(wire.path, QByteArray("/v1/chat/completions"));
        QCOMPARE(wire.header("authorization"), QByteArray("Bearer " + test::kApiKey.toUtf8()));
        QCOMPARE(wire.header("content-type"), QByteArray("application/json"));
        const auto msgs = wire.json().value(QStringLiteral("messages")).toArray();
        QCOMPARE(msgs.size(), 4);
        QCOMPARE(msgs.at(2)
                     .toObject()
                     .value(QStringLiteral("tool_calls"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("id"))
                     .toString(),
                 QStringLiteral("call_A"));
        QCOMPARE(msgs.at(3).toObject().value(QStringLiteral("role")).toString(),
                 QStringLiteral("tool"));
        QCOMPARE(msgs.at(3).toObject().value(QStringLiteral("content")).toString(),
                 QStringLiteral("import torch"));
        QCOMPARE(wire.json().value(QStringLiteral("tool_choice")).toString(),
                 QStringLiteral("auto"));
        QCOMPARE(wire.json().value(QStringLiteral("stream")).toBool(), false);

        // And what was written down.
        QCOMPARE(r2.requestBody, wire.body);
        QVERIFY(r2.raw.contains("fused the loops"));
        QVERIFY(!test::containsKey(r1));
        QVERIFY(!test::containsKey(r2));
        QVERIFY(log.all().contains(QStringLiteral("[redacted]")));
        QVERIFY2(!log.all().contains(test::kApiKey), qPrintable(log.all()));
    }

    void streamingJoinsFragmentsSplitAcrossWrites() {
        FakeProviderServer server;
        const QByteArray toolStart = sseData(
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_S","type":"function","function":{"name":"read_file","arguments":""}}]}}]})");
        const QByteArray argA = sseData(
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\u0022pa"}}]}}]})");
        const QByteArray argB = sseData(
            R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\u0022: \u0022k.cu\u0022}"}}]}}]})");
        const QByteArray both = argA + argB;
        server.enqueue(ScriptedResponse::sse({
            ": keep-alive\n\n",
            sseData(
                R"({"id":"s1","model":"ds","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Think "}}]})"),
            sseData(R"({"choices":[{"index":0,"delta":{"reasoning_content":"hard."}}]})"),
            sseData(R"({"choices":[{"index":0,"delta":{"content":"Reading "}}]})"),
            sseData(R"({"choices":[{"index":0,"delta":{"content":"the file."}}]})") +
                toolStart.left(30),
            toolStart.mid(30),
            both.left(both.size() / 2 + 3), // an event split across two TCP writes
            both.mid(both.size() / 2 + 3),
            sseData(R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"),
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":30,\r\n",
            "data: \"completion_tokens\":12}}\r\n\r\n", // multi-line data, CRLF
            "data: [DONE]\n\n",
        }));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        QSignalSpy deltas(&provider, &engine::ChatClient::streamDelta);
        QSignalSpy thinking(&provider, &engine::ChatClient::reasoningDelta);
        auto req = agentRequest();
        req.stream = true;
        provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        QString text;
        for (const auto& d : deltas)
            text += d.at(1).toString();
        QCOMPARE(text, QStringLiteral("Reading the file."));
        QCOMPARE(deltas.size(), 2);
        QCOMPARE(thinking.size(), 2);
        const auto r = done.at(0).at(1).value<engine::ChatResponse>();
        QCOMPARE(r.content, text);
        QCOMPARE(r.reasoning, QStringLiteral("Think hard."));
        QCOMPARE(r.toolCalls.size(), 1);
        QCOMPARE(r.toolCalls.at(0).id, QStringLiteral("call_S"));
        QCOMPARE(r.toolCalls.at(0).arguments().value(QStringLiteral("path")).toString(),
                 QStringLiteral("k.cu"));
        QCOMPARE(r.stopReason, engine::StopReason::ToolUse);
        QCOMPARE(r.usage.inputTokens, qint64(30));
        QCOMPARE(r.usage.outputTokens, qint64(12));
        QVERIFY(r.timeToFirstTokenMs > 0);
        QVERIFY(r.raw.contains("[DONE]"));
        const auto body = server.requests().at(0).json();
        QCOMPARE(body.value(QStringLiteral("stream")).toBool(), true);
        QCOMPARE(body.value(QStringLiteral("stream_options"))
                     .toObject()
                     .value(QStringLiteral("include_usage"))
                     .toBool(),
                 true);
        QCOMPARE(server.requests().at(0).header("accept"), QByteArray("text/event-stream"));
        QVERIFY(!test::containsKey(r));
    }

    void refusal() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            200, R"({"choices":[{"index":0,"message":{"role":"assistant","content":null,
            "refusal":"I cannot help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":6}})"));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        provider.send(agentRequest());
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        const auto r = done.at(0).at(1).value<engine::ChatResponse>();
        QCOMPARE(r.stopReason, engine::StopReason::Refusal);
        QCOMPARE(r.refusal, QStringLiteral("I cannot help with that."));
    }

    void streamCutMidway() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::sse({
            sseData(R"({"choices":[{"index":0,"delta":{"content":"Half "}}]})"),
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"an ans",
        }));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        QSignalSpy deltas(&provider, &engine::ChatClient::streamDelta);
        auto req = agentRequest();
        req.stream = true;
        const quint64 id = provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        QCOMPARE(failed.at(0).at(0).toULongLong(), id);
        const auto e = failed.at(0).at(1).value<engine::ProviderError>();
        QVERIFY2(e.message.contains(QStringLiteral("stream ended before completion")),
                 qPrintable(e.message));
        QVERIFY(e.transient);
        QCOMPARE(deltas.size(), 1);
        QCOMPARE(server.requests().size(), 1); // no retry once text was shown
    }

    void streamWithoutAnyEventEnd() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::sse(
            {sseData(R"({"choices":[{"index":0,"delta":{"content":"Hi"}}]})")}));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        auto req = agentRequest();
        req.stream = true;
        provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        QVERIFY(failed.at(0).at(1).value<engine::ProviderError>().message.contains(
            QStringLiteral("stream ended before completion")));
    }

    void malformedJson() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            200, "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"trunc"));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(agentRequest());
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = failed.at(0).at(1).value<engine::ProviderError>();
        QVERIFY2(e.message.contains(QStringLiteral("not valid JSON")), qPrintable(e.message));
        QCOMPARE(e.httpStatus, 200);
    }

    void listModelsAndTestConnection() {
        FakeProviderServer server;
        const QByteArray models =
            R"({"object":"list","data":[{"id":"qwen-coder","object":"model"},{"id":"llama","object":"model"}]})";
        server.enqueue(ScriptedResponse::json(200, models));
        server.enqueue(ScriptedResponse::json(200, models));
        server.enqueue(ScriptedResponse::json(
            200, R"({"choices":[{"index":0,"message":{"content":"ok"},"finish_reason":"length"}],
            "usage":{"prompt_tokens":9,"completion_tokens":1}})"));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy listed(&provider, &engine::ChatProvider::modelsListed);
        QSignalSpy tested(&provider, &engine::ChatProvider::connectionTested);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.listModels();
        QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, 5000);
        const auto list = listed.at(0).at(1).value<QList<engine::ModelInfo>>();
        QCOMPARE(list.size(), 2);
        QCOMPARE(list.at(1).id, QStringLiteral("llama"));
        QCOMPARE(server.requests().at(0).method, QByteArray("GET"));
        QCOMPARE(server.requests().at(0).path, QByteArray("/v1/models"));

        const quint64 t = provider.testConnection(QStringLiteral("qwen-coder"));
        QTRY_COMPARE_WITH_TIMEOUT(tested.size(), 1, 5000);
        QCOMPARE(tested.at(0).at(0).toULongLong(), t);
        const auto report = tested.at(0).at(1).value<engine::ConnectionReport>();
        QVERIFY(report.modelListed);
        QCOMPARE(report.reply.content, QStringLiteral("ok"));
        QCOMPARE(report.reply.stopReason, engine::StopReason::MaxTokens);
        QCOMPARE(server.requests().at(2).json().value(QStringLiteral("max_tokens")).toInt(), 1);
        QCOMPARE(failed.size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestOpenAiClient)
#include "tst_openaiclient.moc"
