// "Test connection" against the fake server: the model list, the one-token request with each
// provider's headers, a refused key, a wrong base URL, silence, and offline kinds. The key is
// sent in headers and never appears in a message.
#include "engine/providers/connectiontest.h"
#include "fakeproviderserver.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace kb;
using engine::ConnectionTest;
using engine::ConnectionTestResult;
using engine::ConnectionTestSpec;
using test::FakeProviderServer;
using test::ScriptedResponse;

namespace {

const QString kKey = QStringLiteral("sk-secret-123");

ConnectionTestResult runTest(const ConnectionTestSpec& spec) {
    ConnectionTest t;
    QSignalSpy spy(&t, &ConnectionTest::finished);
    t.start(spec);
    if (!spy.wait(10000))
        return {false, {}, false, false, -1, QStringLiteral("no result")};
    return spy.at(0).at(0).value<ConnectionTestResult>();
}

ConnectionTestSpec spec(const FakeProviderServer& server, const QString& kind,
                        const QString& model = {}) {
    ConnectionTestSpec s;
    s.kind = kind;
    s.baseUrl = server.url().toString();
    s.apiKey = kKey;
    s.model = model;
    s.timeoutMs = 3000;
    return s;
}

} // namespace

class TestConnectionTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void endpointDoesNotDoubleV1_data() {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("url");
        QTest::newRow("host") << QStringLiteral("https://api.example.com")
                              << QStringLiteral("https://api.example.com/v1/models");
        QTest::newRow("v1") << QStringLiteral("https://api.example.com/v1")
                            << QStringLiteral("https://api.example.com/v1/models");
        QTest::newRow("v1 slash") << QStringLiteral("https://x.org/api/v1/")
                                  << QStringLiteral("https://x.org/api/v1/models");
    }

    void endpointDoesNotDoubleV1() {
        QFETCH(QString, base);
        QFETCH(QString, url);
        QCOMPARE(engine::providerEndpoint(base, QStringLiteral("models")).toString(), url);
    }

    void openAiListsModelsAndAnswersOneToken() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            200, R"({"object":"list","data":[{"id":"gpt-b"},{"id":"gpt-a"}]})"));
        server.enqueue(ScriptedResponse::json(
            200,
            R"({"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":1}})"));
        const auto r = runTest(spec(server, QStringLiteral("openai"), QStringLiteral("gpt-a")));
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(r.models, (QStringList{QStringLiteral("gpt-a"), QStringLiteral("gpt-b")}));
        QVERIFY(r.modelListed);
        QVERIFY(r.modelAnswered);
        QVERIFY(r.message.contains(QStringLiteral("'gpt-a' answered")));
        QCOMPARE(server.requests().size(), 2);
        QCOMPARE(server.requests()[0].method, QByteArray("GET"));
        QCOMPARE(server.requests()[0].path, QByteArray("/v1/models"));
        QCOMPARE(server.requests()[0].header("authorization"),
                 QByteArray("Bearer ") + kKey.toUtf8());
        QCOMPARE(server.requests()[1].path, QByteArray("/v1/chat/completions"));
        const auto body = server.requests()[1].json();
        QCOMPARE(body.value(QStringLiteral("max_tokens")).toInt(), 1);
        QCOMPARE(body.value(QStringLiteral("model")).toString(), QStringLiteral("gpt-a"));
    }

    void anthropicSendsItsHeaders() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            200, R"({"data":[{"id":"claude-x","type":"model"}],"has_more":false})"));
        server.enqueue(ScriptedResponse::json(
            200,
            R"({"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":1}})"));
        const auto r =
            runTest(spec(server, QStringLiteral("anthropic"), QStringLiteral("claude-x")));
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(server.requests()[0].path, QByteArray("/v1/models"));
        QCOMPARE(server.requests()[0].header("x-api-key"), kKey.toUtf8());
        QCOMPARE(server.requests()[0].header("anthropic-version"), QByteArray("2023-06-01"));
        QVERIFY(server.requests()[0].header("authorization").isEmpty());
        QCOMPARE(server.requests()[1].path, QByteArray("/v1/messages"));
    }

    void listOnlyWithoutAModel() {
        FakeProviderServer server;
        server.enqueue(
            ScriptedResponse::json(200, R"({"data":[{"id":"a"},{"id":"b"},{"id":"c"}]})"));
        const auto r = runTest(spec(server, QStringLiteral("openai")));
        QVERIFY2(r.ok, qPrintable(r.message));
        QCOMPARE(r.models.size(), 3);
        QVERIFY(!r.modelAnswered);
        QCOMPARE(server.requests().size(), 1);
    }

    void refusedKeyIsReadableAndRedacted() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            401, R"({"error":{"message":"Incorrect API key provided: sk-secret-123"}})"));
        const auto r = runTest(spec(server, QStringLiteral("openai"), QStringLiteral("gpt-a")));
        QVERIFY(!r.ok);
        QCOMPARE(r.httpStatus, 401);
        QVERIFY2(r.message.contains(QStringLiteral("refused the API key")), qPrintable(r.message));
        QVERIFY2(!r.message.contains(kKey), qPrintable(r.message));
        QVERIFY(r.message.contains(QStringLiteral("[key]")));
    }

    void failingOneTokenRequestSaysWhich() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, R"({"data":[{"id":"other"}]})"));
        server.enqueue(ScriptedResponse::json(404, R"({"error":{"message":"model not found"}})"));
        const auto r = runTest(spec(server, QStringLiteral("openai"), QStringLiteral("gpt-a")));
        QVERIFY(!r.ok);
        QVERIFY(!r.modelListed);
        QVERIFY2(r.message.contains(QStringLiteral("one-token request to 'gpt-a' failed")),
                 qPrintable(r.message));
        QVERIFY(r.message.contains(QStringLiteral("model not found")));
    }

    void unreachableAndSilentServers() {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const quint16 port = closed.serverPort();
        closed.close();
        ConnectionTestSpec s;
        s.kind = QStringLiteral("openai");
        s.baseUrl = QStringLiteral("http://127.0.0.1:%1").arg(port);
        auto r = runTest(s);
        QVERIFY(!r.ok);
        QVERIFY2(r.message.startsWith(QStringLiteral("Cannot reach 127.0.0.1")),
                 qPrintable(r.message));

        FakeProviderServer server;
        ScriptedResponse silent;
        silent.neverAnswer = true;
        server.enqueue(silent);
        auto silentSpec = spec(server, QStringLiteral("anthropic"));
        silentSpec.timeoutMs = 300;
        r = runTest(silentSpec);
        QVERIFY(!r.ok);
        QVERIFY2(r.message.contains(QStringLiteral("No answer")), qPrintable(r.message));
    }

    void offlineKindsAndBadInput() {
        ConnectionTestSpec s;
        s.kind = QStringLiteral("demo");
        QVERIFY(runTest(s).ok);
        s.kind = QStringLiteral("gemini");
        QVERIFY(runTest(s).message.contains(QStringLiteral("Unknown provider kind")));
        s.kind = QStringLiteral("openai");
        s.baseUrl = QStringLiteral("not a url");
        const auto r = runTest(s);
        QVERIFY(!r.ok);
        QVERIFY2(r.message.contains(QStringLiteral("not a valid")), qPrintable(r.message));
    }
};

QTEST_GUILESS_MAIN(TestConnectionTest)
#include "tst_connectiontest.moc"
