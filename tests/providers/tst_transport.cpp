// Transport and limits through the facade: retry-after honoured, backoff on 500, no retry on
// 401 (with the provider's message, the key redacted), timeouts, the response size cap,
// unreachable hosts, concurrency, the token budget and cancellation.
#include "providertestsupport.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace kb;
using engine::ChatMessage;
using test::FakeProviderServer;
using test::ScriptedResponse;

namespace {
const QByteArray kOk =
    R"({"choices":[{"index":0,"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}})";

engine::ChatRequest hello() {
    engine::ChatRequest r;
    r.model = QStringLiteral("m");
    r.messages = {ChatMessage::user(QStringLiteral("hello"))};
    return r;
}

engine::ProviderError firstError(const QSignalSpy& failed) {
    return failed.at(0).at(1).value<engine::ProviderError>();
}
} // namespace

class TestTransport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<engine::ChatResponse>();
        qRegisterMetaType<engine::ProviderError>();
    }

    void rateLimitHonoursRetryAfter_data() {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<qint64>("waitMs");
        QTest::newRow("retry-after-ms")
            << QByteArray("retry-after-ms") << QByteArray("300") << qint64(300);
        QTest::newRow("retry-after seconds")
            << QByteArray("Retry-After") << QByteArray("1") << qint64(1000);
    }
    void rateLimitHonoursRetryAfter() {
        QFETCH(QByteArray, header);
        QFETCH(QByteArray, value);
        QFETCH(qint64, waitMs);
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(
            429, R"({"error":{"message":"Rate limit reached","type":"rate_limit_error"}})",
            {{header, value}}));
        server.enqueue(ScriptedResponse::json(200, kOk));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        QSignalSpy retrying(&provider, &engine::ChatProvider::retrying);
        QElapsedTimer t;
        t.start();
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        QVERIFY2(t.elapsed() >= waitMs, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(retrying.size(), 1);
        QCOMPARE(retrying.at(0).at(1).toInt(), 2);
        QCOMPARE(retrying.at(0).at(2).toLongLong(), waitMs);
        const auto cause = retrying.at(0).at(3).value<engine::ProviderError>();
        QCOMPARE(cause.httpStatus, 429);
        QCOMPARE(cause.retryAfterMs, waitMs);
        QVERIFY(cause.message.contains(QStringLiteral("Rate limit reached")));
        QCOMPARE(done.at(0).at(1).value<engine::ChatResponse>().attempts, 2);
    }

    void retryAfterTooLongFailsWithTheWait() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(429, R"({"error":{"message":"slow down"}})",
                                              {{"retry-after", "3600"}}));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = firstError(failed);
        QVERIFY(e.transient);
        QCOMPARE(e.retryAfterMs, qint64(3600000));
        QVERIFY2(e.message.contains(QStringLiteral("asks to wait 3600 s")), qPrintable(e.message));
    }

    void serverErrorThenSuccess() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(500, R"({"error":{"message":"internal"}})"));
        server.enqueue(ScriptedResponse::json(200, kOk));
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        QSignalSpy retrying(&provider, &engine::ChatProvider::retrying);
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        QCOMPARE(retrying.at(0).at(2).toLongLong(), qint64(20)); // base delay, no jitter drawn
        QCOMPARE(done.at(0).at(1).value<engine::ChatResponse>().content, QStringLiteral("ok"));
        QCOMPARE(server.requests().size(), 2);
    }

    void retriesRunOut() {
        FakeProviderServer server;
        for (int i = 0; i < 3; ++i)
            server.enqueue(ScriptedResponse::json(503, R"({"error":{"message":"unavailable"}})"));
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.transport.retry.maxAttempts = 3;
        engine::ChatProvider provider(cfg);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = firstError(failed);
        QCOMPARE(e.httpStatus, 503);
        QVERIFY(e.transient);
        QVERIFY2(e.message.contains(QStringLiteral("after 3 attempts")), qPrintable(e.message));
        QCOMPARE(server.requests().size(), 3);
    }

    void unauthorizedIsNotRetriedAndKeepsTheKeyOut() {
        FakeProviderServer server;
        // Providers like to echo the key they were given.
        server.enqueue(ScriptedResponse::json(
            401, QByteArray(R"({"error":{"message":"Incorrect API key provided: )" +
                            test::kApiKey.toUtf8() + R"(.","type":"invalid_request_error"}})")));
        test::LogCapture log;
        engine::ChatProvider provider(
            test::configFor(server, engine::ProviderKind::OpenAiCompatible));
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        QSignalSpy retrying(&provider, &engine::ChatProvider::retrying);
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        QTest::qWait(100);
        const auto e = firstError(failed);
        QCOMPARE(e.httpStatus, 401);
        QVERIFY(!e.transient);
        QCOMPARE(e.providerType, QStringLiteral("invalid_request_error"));
        QVERIFY2(e.message.contains(QStringLiteral("HTTP 401")), qPrintable(e.message));
        QVERIFY2(e.message.contains(QStringLiteral("Incorrect API key provided: [redacted].")),
                 qPrintable(e.message));
        QVERIFY(!e.message.contains(test::kApiKey));
        QCOMPARE(retrying.size(), 0);
        QCOMPARE(server.requests().size(), 1);
        QVERIFY(server.requests().at(0).raw.contains(test::kApiKey.toUtf8())); // it was sent
        QVERIFY(!log.all().contains(test::kApiKey));
    }

    void silentServerTimesOut() {
        FakeProviderServer server;
        ScriptedResponse silent;
        silent.neverAnswer = true;
        server.enqueue(silent);
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.transport.timeoutMs = 500;
        cfg.transport.retry.maxAttempts = 1;
        engine::ChatProvider provider(cfg);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        QElapsedTimer t;
        t.start();
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 3000);
        QVERIFY(t.elapsed() >= 450);
        const auto e = firstError(failed);
        QVERIFY2(e.message.contains(QStringLiteral("timed out after 0.5 s")),
                 qPrintable(e.message));
        QVERIFY(e.transient);
    }

    void timeoutIsRetriedThenSucceeds() {
        FakeProviderServer server;
        ScriptedResponse silent;
        silent.neverAnswer = true;
        server.enqueue(silent);
        server.enqueue(ScriptedResponse::json(200, kOk));
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.transport.timeoutMs = 300;
        engine::ChatProvider provider(cfg);
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 3000);
        QCOMPARE(done.at(0).at(1).value<engine::ChatResponse>().attempts, 2);
    }

    void overLongResponseIsAborted_data() {
        QTest::addColumn<bool>("stream");
        QTest::newRow("whole body") << false;
        QTest::newRow("stream") << true;
    }
    void overLongResponseIsAborted() {
        QFETCH(bool, stream);
        FakeProviderServer server;
        const QByteArray huge =
            QByteArray("{\"choices\":[{\"index\":0,\"message\":{\"content\":\"") +
            QByteArray(20000, 'x') + "\"},\"finish_reason\":\"stop\"}]}";
        if (stream) {
            QList<QByteArray> chunks;
            for (int i = 0; i < 40; ++i)
                chunks.append(test::sseData("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
                                            QByteArray(1000, 'y') + "\"}}]}"));
            auto r = ScriptedResponse::sse(chunks);
            r.chunkDelayMs = 2;
            server.enqueue(r);
        } else {
            server.enqueue(ScriptedResponse::json(200, huge));
        }
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.transport.maxResponseBytes = 5000;
        engine::ChatProvider provider(cfg);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        auto req = hello();
        req.stream = stream;
        provider.send(req);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = firstError(failed);
        QVERIFY2(e.message.contains(QStringLiteral("exceeded the limit of 5000 bytes")),
                 qPrintable(e.message));
        QVERIFY(!e.transient);
        QCOMPARE(server.requests().size(), 1);
    }

    void unreachableHostIsRetriedThenReported() {
        quint16 port = 0;
        {
            QTcpServer probe;
            probe.listen(QHostAddress::LocalHost, 0);
            port = probe.serverPort();
        } // closed: connections are refused
        engine::ProviderConfig cfg;
        cfg.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(port));
        cfg.apiKey = test::kApiKey;
        cfg.transport.retry.baseDelayMs = 10;
        cfg.transport.retry.maxAttempts = 2;
        engine::ChatProvider provider(cfg);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        QSignalSpy retrying(&provider, &engine::ChatProvider::retrying);
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        const auto e = firstError(failed);
        QVERIFY2(e.message.contains(QStringLiteral("could not reach the provider")),
                 qPrintable(e.message));
        QVERIFY(e.transient);
        QCOMPARE(e.httpStatus, 0);
        QCOMPARE(retrying.size(), 1);
    }

    void concurrencyLimitQueues() {
        FakeProviderServer server;
        ScriptedResponse slow = ScriptedResponse::sse(
            {test::sseData(
                 R"({"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]})"),
             "data: [DONE]\n\n"});
        slow.chunkDelayMs = 150;
        server.enqueue(slow);
        server.enqueue(ScriptedResponse::json(200, kOk));
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.maxConcurrent = 1;
        engine::ChatProvider provider(cfg);
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        auto first = hello();
        first.stream = true;
        const quint64 a = provider.send(first);
        const quint64 b = provider.send(hello());
        QCOMPARE(provider.limiter().running(), 1);
        QCOMPARE(provider.limiter().waiting(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 1, 5000);
        QTest::qWait(100);
        QCOMPARE(server.requests().size(), 1); // the second waits for the first
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 5000);
        QCOMPARE(done.at(0).at(0).toULongLong(), a);
        QCOMPARE(done.at(1).at(0).toULongLong(), b);
        QCOMPARE(provider.limiter().running(), 0);
    }

    void tokenBudgetRefusesNewRequests() {
        FakeProviderServer server;
        server.enqueue(ScriptedResponse::json(200, kOk)); // 15 tokens
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.tokenBudget = 15;
        engine::ChatProvider provider(cfg);
        QSignalSpy done(&provider, &engine::ChatClient::finished);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 5000);
        const quint64 refused = provider.send(hello());
        QCOMPARE(failed.size(), 0); // never from inside send()
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        QCOMPARE(failed.at(0).at(0).toULongLong(), refused);
        QVERIFY2(firstError(failed).message.contains(
                     QStringLiteral("token budget of 15 tokens is spent")),
                 qPrintable(firstError(failed).message));
        QCOMPARE(server.requests().size(), 1);
    }

    void cancelRunningAndQueued() {
        FakeProviderServer server;
        ScriptedResponse silent;
        silent.neverAnswer = true;
        server.enqueue(silent);
        auto cfg = test::configFor(server, engine::ProviderKind::OpenAiCompatible);
        cfg.maxConcurrent = 1;
        engine::ChatProvider provider(cfg);
        QSignalSpy failed(&provider, &engine::ChatClient::failed);
        const quint64 a = provider.send(hello());
        const quint64 b = provider.send(hello());
        QTRY_COMPARE_WITH_TIMEOUT(server.requests().size(), 1, 5000);
        provider.cancel(b);
        provider.cancel(a);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 2, 5000);
        for (const auto& f : failed)
            QCOMPARE(f.at(1).value<engine::ProviderError>().message, QStringLiteral("cancelled"));
        QCOMPARE(provider.limiter().running(), 0);
        QCOMPARE(provider.limiter().waiting(), 0);
        QTest::qWait(50);
        QCOMPARE(server.requests().size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestTransport)
#include "tst_transport.moc"
