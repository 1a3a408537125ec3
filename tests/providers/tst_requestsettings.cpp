// Per-provider and per-model request settings, from the stored rows (as `provider add` and
// `model add` write them) to the bytes on the wire: the token-limit field and reasoning_effort
// of a reasoning model, Anthropic thinking, sampling fields, extra headers, streaming off,
// retries and timeouts; the checks that refuse bad values on entry; keys bound to the host.
#include "generation/providerclients.h"
#include "generation/turnrecord.h"
#include "providers/keystore.h"
#include "providers/requestoptions.h"
#include "providertestsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace kb;
using test::FakeProviderServer;
using test::ScriptedResponse;

namespace {

const QByteArray kOpenAiAnswer = R"({"id":"c1","model":"o4-mini","choices":[{"index":0,
    "message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}})";
const QByteArray kAnthropicAnswer =
    R"({"id":"m1","type":"message","role":"assistant","model":"claude",
    "content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":1}})";

db::ProviderRow providerRow(const QString& kind, const QUrl& url, const QJsonObject& settings,
                            const char* name = "p") {
    db::ProviderRow p;
    p.id = 1;
    p.name = name;
    p.kind = kind.toStdString();
    p.baseUrl = url.toString().toStdString();
    p.settingsJson = QJsonDocument(settings).toJson(QJsonDocument::Compact).toStdString();
    return p;
}

db::ModelRow modelRow(const char* name, const QJsonObject& settings) {
    db::ModelRow m;
    m.id = 1;
    m.providerId = 1;
    m.name = name;
    m.settingsJson = QJsonDocument(settings).toJson(QJsonDocument::Compact).toStdString();
    return m;
}

engine::ChatRequest request(const QString& model, bool stream = false) {
    engine::ChatRequest r;
    r.model = model;
    r.maxTokens = 8000;
    r.stream = stream;
    r.messages = {engine::ChatMessage::user(QStringLiteral("Write a kernel."))};
    return r;
}

// Sends one request through a provider built from the rows; returns the body the server got.
test::ReceivedRequest sendThrough(FakeProviderServer& server, const db::ProviderRow& p,
                                  const db::ModelRow& m, const engine::ChatRequest& r,
                                  const engine::KeyStore* keys = nullptr) {
    QString error;
    auto config = engine::providerConfig(p, {m}, keys, &error);
    if (!config) {
        qWarning("%s", qPrintable(error));
        return {};
    }
    config->transport.retry.baseDelayMs = 10;
    engine::ChatProvider provider(*config);
    QSignalSpy done(&provider, &engine::ChatClient::finished);
    QSignalSpy failed(&provider, &engine::ChatClient::failed);
    provider.send(r);
    if (!QTest::qWaitFor([&] { return done.size() + failed.size() > 0; }, 10000))
        return {};
    return server.requests().isEmpty() ? test::ReceivedRequest() : server.requests().last();
}

// The body compared with tests/providers/golden/<name>.json; a mismatch writes <name>.json.actual.
bool matchesGolden(const QJsonObject& body, const QString& name) {
    const QString path = QFINDTESTDATA(QStringLiteral("golden/") + name + QStringLiteral(".json"));
    QFile f(path);
    const QJsonObject expected =
        f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
    if (body == expected)
        return true;
    QFile actual((path.isEmpty() ? QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/golden/") + name +
                                       QStringLiteral(".json")
                                 : path) +
                 QStringLiteral(".actual"));
    if (actual.open(QIODevice::WriteOnly | QIODevice::Truncate))
        actual.write(QJsonDocument(body).toJson());
    qWarning("request body differs from golden/%s.json; written to %s:\n%s", qPrintable(name),
             qPrintable(actual.fileName()), QJsonDocument(body).toJson().constData());
    return false;
}

} // namespace

class TestRequestSettings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<engine::ChatResponse>();
        qRegisterMetaType<engine::ProviderError>();
    }

    void reasoningModelTakesMaxCompletionTokensAndEffort() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, kOpenAiAnswer));
        const auto m =
            modelRow("o4-mini",
                     {{QStringLiteral("token_field"), QStringLiteral("max_completion_tokens")},
                      {QStringLiteral("extra_body"),
                       QJsonObject{{QStringLiteral("reasoning_effort"), QStringLiteral("high")}}}});
        const auto got = sendThrough(
            server, providerRow(QStringLiteral("openai"), server.url(QStringLiteral("/v1")), {}), m,
            request(QStringLiteral("o4-mini")));
        const QJsonObject body = got.json();
        QVERIFY(!body.contains(QStringLiteral("max_tokens")));
        QCOMPARE(body.value(QStringLiteral("max_completion_tokens")).toInt(), 8000);
        QVERIFY(matchesGolden(body, QStringLiteral("openai-reasoning")));
    }

    void anthropicThinkingReachesTheWire() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, kAnthropicAnswer));
        const auto m =
            modelRow("claude-sonnet",
                     {{QStringLiteral("extra_body"),
                       QJsonObject{{QStringLiteral("thinking"),
                                    QJsonObject{{QStringLiteral("type"), QStringLiteral("enabled")},
                                                {QStringLiteral("budget_tokens"), 4096}}}}}});
        const QJsonObject provider{
            {QStringLiteral("extra_headers"),
             QJsonObject{{QStringLiteral("anthropic-beta"),
                          QStringLiteral("interleaved-thinking-2025-05-14")}}}};
        const auto got =
            sendThrough(server, providerRow(QStringLiteral("anthropic"), server.url(), provider), m,
                        request(QStringLiteral("claude-sonnet")));
        QCOMPARE(got.header("anthropic-beta"), QByteArray("interleaved-thinking-2025-05-14"));
        QCOMPARE(got.path, QByteArray("/v1/messages"));
        QVERIFY(matchesGolden(got.json(), QStringLiteral("anthropic-thinking")));
    }

    void samplingSettingsMergeModelOverProvider() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, kOpenAiAnswer));
        // The provider streams off, adds a referer and a default top_k; the model sets top_p,
        // seed, a temperature and its own top_k, which wins.
        const QJsonObject provider{
            {QStringLiteral("stream"), false},
            {QStringLiteral("extra_headers"),
             QJsonObject{
                 {QStringLiteral("HTTP-Referer"), QStringLiteral("https://example.org/kbstudio")}}},
            {QStringLiteral("extra_body"), QJsonObject{{QStringLiteral("top_k"), 50}}}};
        const auto m = modelRow(
            "qwen", {{QStringLiteral("top_p"), 0.9},
                     {QStringLiteral("seed"), 1234},
                     {QStringLiteral("temperature"), 0.6},
                     {QStringLiteral("extra_body"), QJsonObject{{QStringLiteral("top_k"), 20}}}});
        const auto got = sendThrough(
            server,
            providerRow(QStringLiteral("openai"), server.url(QStringLiteral("/v1")), provider), m,
            request(QStringLiteral("qwen"), /*stream=*/true));
        QCOMPARE(got.header("http-referer"), QByteArray("https://example.org/kbstudio"));
        QVERIFY(matchesGolden(got.json(), QStringLiteral("openai-sampling")));
    }

    void theRunsTemperatureWinsOverTheModels() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, kOpenAiAnswer));
        auto r = request(QStringLiteral("qwen"));
        r.temperature = 0.0;
        const auto got = sendThrough(
            server, providerRow(QStringLiteral("openai"), server.url(QStringLiteral("/v1")), {}),
            modelRow("qwen", {{QStringLiteral("temperature"), 0.7}}), r);
        QCOMPARE(got.json().value(QStringLiteral("temperature")).toDouble(-1), 0.0);
    }

    void retriesAndTimeoutsAreTheProvidersSettings() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(500, R"({"error":{"message":"boom"}})"));
        server.enqueue(ScriptedResponse::json(200, kOpenAiAnswer));
        const auto p = providerRow(QStringLiteral("openai"), server.url(QStringLiteral("/v1")),
                                   {{QStringLiteral("max_attempts"), 1}});
        sendThrough(server, p, modelRow("qwen", {}), request(QStringLiteral("qwen")));
        QCOMPARE(server.requests().size(), 1); // no retry

        FakeProviderServer silent;
        ScriptedResponse never;
        never.neverAnswer = true;
        silent.enqueue(never);
        QString error;
        auto config = engine::providerConfig(providerRow(QStringLiteral("openai"),
                                                         silent.url(QStringLiteral("/v1")),
                                                         {{QStringLiteral("timeout_ms"), 1000},
                                                          {QStringLiteral("max_attempts"), 1}}),
                                             {}, nullptr, &error);
        QVERIFY2(config, qPrintable(error));
        engine::ChatProvider provider(*config);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        QElapsedTimer t;
        t.start();
        provider.send(request(QStringLiteral("qwen")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 8000);
        QVERIFY(t.elapsed() < 5000);
        QVERIFY2(failed.at(0).at(1).value<engine::ProviderError>().message.contains(
                     QStringLiteral("timed out")),
                 qPrintable(failed.at(0).at(1).value<engine::ProviderError>().message));
    }

    void badSettingsAreRefusedOnEntry_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QJsonObject>("settings");
        QTest::addColumn<QString>("says");
        auto row = [](const char* name, const char* kind, QJsonObject s, const char* says) {
            QTest::newRow(name) << QString::fromLatin1(kind) << s << QString::fromLatin1(says);
        };
        row("temperature above 2", "openai", {{QStringLiteral("temperature"), 2.5}}, "from 0 to 2");
        row("anthropic temperature above 1", "anthropic", {{QStringLiteral("temperature"), 1.5}},
            "from 0 to 1");
        row("negative temperature", "openai", {{QStringLiteral("temperature"), -0.1}},
            "temperature");
        row("unknown token field", "openai",
            {{QStringLiteral("token_field"), QStringLiteral("max_output")}},
            "max_tokens or max_completion_tokens");
        row("anthropic max_completion_tokens", "anthropic",
            {{QStringLiteral("token_field"), QStringLiteral("max_completion_tokens")}},
            "max_tokens only");
        row("extra body sets the model", "openai",
            {{QStringLiteral("extra_body"),
              QJsonObject{{QStringLiteral("model"), QStringLiteral("x")}}}},
            "'model'");
        row("extra body sets max_tokens", "openai",
            {{QStringLiteral("extra_body"), QJsonObject{{QStringLiteral("max_tokens"), 5}}}},
            "--max-tokens");
        row("extra body not an object", "openai",
            {{QStringLiteral("extra_body"), QStringLiteral("{}")}}, "JSON object");
        row("reasoning effort unknown", "openai",
            {{QStringLiteral("extra_body"),
              QJsonObject{{QStringLiteral("reasoning_effort"), QStringLiteral("max")}}}},
            "reasoning_effort must be");
        row("reasoning effort on anthropic", "anthropic",
            {{QStringLiteral("extra_body"),
              QJsonObject{{QStringLiteral("reasoning_effort"), QStringLiteral("high")}}}},
            "thinking");
        row("thinking budget too small", "anthropic",
            {{QStringLiteral("extra_body"),
              QJsonObject{{QStringLiteral("thinking"),
                           QJsonObject{{QStringLiteral("type"), QStringLiteral("enabled")},
                                       {QStringLiteral("budget_tokens"), 100}}}}}},
            "1024");
        row("top_p above 1", "openai", {{QStringLiteral("top_p"), 1.5}}, "top_p");
        row("fractional seed", "openai", {{QStringLiteral("seed"), 1.5}}, "integer");
        row("key in a header", "openai",
            {{QStringLiteral("extra_headers"),
              QJsonObject{{QStringLiteral("Authorization"), QStringLiteral("Bearer sk-x")}}}},
            "key store");
        row("x-api-key header", "anthropic",
            {{QStringLiteral("extra_headers"),
              QJsonObject{{QStringLiteral("x-api-key"), QStringLiteral("sk-x")}}}},
            "key store");
        row("header line break", "openai",
            {{QStringLiteral("extra_headers"),
              QJsonObject{{QStringLiteral("X-A"), QStringLiteral("a\r\nHost: evil")}}}},
            "line break");
        row("header bad name", "openai",
            {{QStringLiteral("extra_headers"),
              QJsonObject{{QStringLiteral("bad name"), QStringLiteral("v")}}}},
            "not a valid header name");
        row("stream not a boolean", "openai", {{QStringLiteral("stream"), QStringLiteral("off")}},
            "true or false");
        row("zero attempts", "openai", {{QStringLiteral("max_attempts"), 0}}, "max_attempts");
    }
    void badSettingsAreRefusedOnEntry() {
        QFETCH(QString, kind);
        QFETCH(QJsonObject, settings);
        QFETCH(QString, says);
        const QString error = engine::checkRequestSettings(kind, settings);
        QVERIFY2(error.contains(says), qPrintable(error));
        // A stored row with the same setting is refused before any request, naming the provider.
        QString why;
        const auto config = engine::providerConfig(
            providerRow(kind, QUrl(QStringLiteral("https://api.example.com/v1")), settings), {},
            nullptr, &why);
        QVERIFY(!config);
        QVERIFY2(why.contains(QStringLiteral("provider 'p'")) && why.contains(says),
                 qPrintable(why));
    }

    void goodSettingsPass() {
        QCOMPARE(engine::checkRequestSettings(
                     QStringLiteral("openai"),
                     {{QStringLiteral("token_field"), QStringLiteral("max_completion_tokens")},
                      {QStringLiteral("temperature"), 2.0},
                      {QStringLiteral("extra_body"),
                       QJsonObject{{QStringLiteral("reasoning_effort"), QStringLiteral("low")}}}}),
                 QString());
        QCOMPARE(engine::checkRequestSettings(QStringLiteral("anthropic"),
                                              {{QStringLiteral("temperature"), 1.0}}),
                 QString());
    }

    // An HTTP error reads "HTTP 400 Bad Request from the provider: …" once, not "HTTP 400: HTTP 400
    // …".
    void httpStatusIsNamedOnce() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            400, R"({"error":{"message":"Unsupported parameter: 'max_tokens'"}})"));
        QString error;
        auto config = engine::providerConfig(
            providerRow(QStringLiteral("openai"), server.url(QStringLiteral("/v1")), {}), {},
            nullptr, &error);
        engine::ChatProvider provider(*config);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(request(QStringLiteral("o4-mini")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = failed.at(0).at(1).value<engine::ProviderError>();
        const QString text = engine::describeProviderError(e);
        QCOMPARE(text.count(QStringLiteral("HTTP 400")), 1);
        QVERIFY2(text.contains(QStringLiteral("Unsupported parameter")), qPrintable(text));
        engine::ProviderError bare;
        bare.httpStatus = 502;
        bare.message = QStringLiteral("bad gateway");
        QCOMPARE(engine::describeProviderError(bare), QStringLiteral("HTTP 502: bad gateway"));
    }

    void baseUrlWithoutV1() {
        // Without a path, /v1 is added, as the GUI's connection test does.
        QString note;
        const QUrl u = engine::normalizedBaseUrl(
            QStringLiteral("openai"), QUrl(QStringLiteral("http://127.0.0.1:8000")), &note);
        QCOMPARE(u.toString(), QStringLiteral("http://127.0.0.1:8000/v1"));
        QVERIFY(note.contains(QStringLiteral("/v1")));
        QCOMPARE(engine::normalizedBaseUrl(QStringLiteral("anthropic"),
                                           QUrl(QStringLiteral("https://api.anthropic.com/v1/")))
                     .toString(),
                 QStringLiteral("https://api.anthropic.com"));
        QCOMPARE(engine::normalizedBaseUrl(QStringLiteral("openai"),
                                           QUrl(QStringLiteral("https://openrouter.ai/api/v1/")))
                     .toString(),
                 QStringLiteral("https://openrouter.ai/api/v1"));

        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, kOpenAiAnswer));
        const auto got =
            sendThrough(server, providerRow(QStringLiteral("openai"), server.url(), {}),
                        modelRow("q", {}), request(QStringLiteral("q")));
        QCOMPARE(got.path, QByteArray("/v1/chat/completions"));

        // A path without v1: a 404 says what is probably wrong instead of a bare 404.
        server.enqueue(ScriptedResponse::json(404, R"({"error":{"message":"not found"}})"));
        QString error;
        auto config = engine::providerConfig(
            providerRow(QStringLiteral("openai"), server.url(QStringLiteral("/api")), {}), {},
            nullptr, &error);
        engine::ChatProvider provider(*config);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(request(QStringLiteral("q")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const QString message = failed.at(0).at(1).value<engine::ProviderError>().message;
        QVERIFY2(message.contains(QStringLiteral("HTTP 404")) &&
                     message.contains(QStringLiteral("has no /v1")),
                 qPrintable(message));
    }

    void cutStreamsKeepTheTokensSeen() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::sse(
            {test::sseEvent(
                 "message_start",
                 R"({"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":321,"output_tokens":1}}})"),
             test::sseEvent(
                 "content_block_start",
                 R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"),
             test::sseEvent(
                 "content_block_delta",
                 R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"import torch"}})")}));
        QString error;
        auto config = engine::providerConfig(providerRow(QStringLiteral("anthropic"), server.url(),
                                                         {{QStringLiteral("max_attempts"), 1}}),
                                             {}, nullptr, &error);
        QVERIFY2(config, qPrintable(error));
        engine::ChatProvider provider(*config);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(request(QStringLiteral("claude"), true));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = failed.at(0).at(1).value<engine::ProviderError>();
        QVERIFY(e.message.contains(QStringLiteral("stream ended")));
        QCOMPARE(e.partialUsage.inputTokens, qint64(321));
        QVERIFY(e.partialUsage.outputTokens >= 1);
        QCOMPARE(e.partialContent, QStringLiteral("import torch"));
        // The turn stored for it carries them.
        const db::TurnRow turn = engine::turnFromError({7, 0, QStringLiteral("generation"), {}},
                                                       request(QStringLiteral("claude")), e);
        QCOMPARE(turn.inputTokens, qint64(321));
        QCOMPARE(QString::fromStdString(turn.response), QStringLiteral("import torch"));
        QCOMPARE(provider.totalUsage().inputTokens, qint64(321));

        // OpenAI-compatible streams report usage at the end only: the pieces seen are counted.
        FakeProviderServer oai;
        oai.enqueue(ScriptedResponse::sse(
            {test::sseData(
                 R"({"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"im"}}]})"),
             test::sseData(R"({"id":"c","choices":[{"index":0,"delta":{"content":"port"}}]})"),
             test::sseData(R"({"id":"c","choices":[{"index":0,"delta":{"content":" torch"}}]})")}));
        auto oc = engine::providerConfig(providerRow(QStringLiteral("openai"),
                                                     oai.url(QStringLiteral("/v1")),
                                                     {{QStringLiteral("max_attempts"), 1}}),
                                         {}, nullptr, &error);
        QVERIFY2(oc, qPrintable(error));
        engine::ChatProvider op(*oc);
        QSignalSpy ofailed(&op, &engine::ChatClient::failed);
        op.send(request(QStringLiteral("q"), true));
        QTRY_COMPARE_WITH_TIMEOUT(ofailed.size(), 1, 5000);
        const auto oe = ofailed.at(0).at(1).value<engine::ProviderError>();
        QCOMPARE(oe.partialUsage.outputTokens, qint64(3));
        QCOMPARE(oe.partialContent, QStringLiteral("import torch"));
    }
};

QTEST_GUILESS_MAIN(TestRequestSettings)
#include "tst_requestsettings.moc"
