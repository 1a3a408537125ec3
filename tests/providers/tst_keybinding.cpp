// Keys belong to a host, tried from the attacker's side: a database that names a provider like
// the user's but points it elsewhere, a scheme downgrade, a redirect to another host, a key
// left under a bare name. The key must reach the host it was stored for and nothing else.
#include "generation/providerclients.h"
#include "providers/keystore.h"
#include "providertestsupport.h"

#include <QSignalSpy>
#include <QTest>

using namespace kb;
using test::FakeProviderServer;
using test::ScriptedResponse;

namespace {
const QByteArray kAnswer = R"({"id":"c1","model":"m","choices":[{"index":0,
    "message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}})";

db::ProviderRow row(const QUrl& url, const char* name = "oai") {
    db::ProviderRow p;
    p.id = 1;
    p.name = name;
    p.kind = "openai";
    p.baseUrl = url.toString().toStdString();
    p.settingsJson = "{}";
    return p;
}

engine::ChatRequest hello() {
    engine::ChatRequest r;
    r.model = QStringLiteral("m");
    r.maxTokens = 5;
    r.messages = {engine::ChatMessage::user(QStringLiteral("hi"))};
    return r;
}

// Sends one request with whatever key the provider row gets from the store.
void sendOnce(const db::ProviderRow& p, const engine::KeyStore& keys) {
    QString error;
    auto config = engine::providerConfig(p, {}, &keys, &error);
    QVERIFY2(config, qPrintable(error));
    config->transport.retry.maxAttempts = 1;
    engine::ChatProvider provider(*config);
    QSignalSpy done(&provider, &engine::ChatClient::finished);
    QSignalSpy failed(&provider, &engine::ChatClient::failed);
    provider.send(hello());
    QTRY_COMPARE_WITH_TIMEOUT(done.size() + failed.size(), 1, 8000);
}
} // namespace

class TestKeyBinding : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<engine::ChatResponse>();
        qRegisterMetaType<engine::ProviderError>();
    }

    void theKeyNameCarriesTheHost() {
        QCOMPARE(engine::hostBoundKeyName(QStringLiteral("oai"),
                                          QUrl(QStringLiteral("https://api.openai.com/v1"))),
                 QStringLiteral("oai@https://api.openai.com:443"));
        QCOMPARE(engine::hostBoundKeyName(QStringLiteral("oai"),
                                          QUrl(QStringLiteral("http://API.example.com:8000/v1"))),
                 QStringLiteral("oai@http://api.example.com:8000"));
        QVERIFY(engine::hostBoundKeyName(QStringLiteral("oai"),
                                         QUrl(QStringLiteral("file:///etc/passwd")))
                    .isEmpty());
    }

    void aProviderOfTheSameNameElsewhereGetsNoKey() {
        FakeProviderServer home;
        FakeProviderServer attacker;
        home.enqueue(ScriptedResponse::json(200, kAnswer));
        attacker.enqueue(ScriptedResponse::json(200, kAnswer));
        engine::MemoryKeyStore keys;
        keys.writeKey(
            engine::hostBoundKeyName(QStringLiteral("oai"), home.url(QStringLiteral("/v1"))),
            test::kApiKey);

        sendOnce(row(home.url(QStringLiteral("/v1"))), keys);
        QCOMPARE(home.requests().size(), 1);
        QCOMPARE(home.requests().at(0).header("authorization"),
                 QByteArray("Bearer ") + test::kApiKey.toUtf8());

        // Another database names its provider "oai" too, at another address.
        sendOnce(row(attacker.url(QStringLiteral("/v1"))), keys);
        QCOMPARE(attacker.requests().size(), 1);
        QVERIFY(attacker.requests().at(0).header("authorization").isEmpty());
        QVERIFY(!attacker.requests().at(0).raw.contains(test::kApiKey.toUtf8()));

        // The same host by another scheme is another binding.
        QString error;
        QUrl https = home.url(QStringLiteral("/v1"));
        https.setScheme(QStringLiteral("https"));
        auto config = engine::providerConfig(row(https), {}, &keys, &error);
        QVERIFY(config);
        QVERIFY(config->apiKey.isEmpty());
    }

    void aKeyUnderItsBareNameIsNotSentAnywhere() {
        FakeProviderServer attacker;
        engine::MemoryKeyStore keys;
        keys.writeKey(QStringLiteral("oai"), test::kApiKey); // stored before keys had hosts
        QString error;
        const auto config =
            engine::providerConfig(row(attacker.url(QStringLiteral("/v1"))), {}, &keys, &error);
        QVERIFY(!config);
        QVERIFY2(error.contains(QStringLiteral("store it again")) &&
                     error.contains(QStringLiteral("another host")),
                 qPrintable(error));
        QVERIFY(!error.contains(test::kApiKey));
        QCOMPARE(attacker.requests().size(), 0);
    }

    void aRedirectToAnotherHostIsNotFollowed() {
        FakeProviderServer home;
        FakeProviderServer attacker;
        attacker.enqueue(ScriptedResponse::json(200, kAnswer));
        home.enqueue(ScriptedResponse::json(
            307, "{}",
            {{"Location",
              attacker.url(QStringLiteral("/v1/chat/completions")).toString().toUtf8()}}));
        engine::MemoryKeyStore keys;
        keys.writeKey(
            engine::hostBoundKeyName(QStringLiteral("oai"), home.url(QStringLiteral("/v1"))),
            test::kApiKey);
        sendOnce(row(home.url(QStringLiteral("/v1"))), keys);
        QCOMPARE(home.requests().size(), 1);
        QTest::qWait(200);
        QCOMPARE(attacker.requests().size(), 0);
    }

    void everyStoredKeyIsKnownForRedaction() {
        engine::MemoryKeyStore keys;
        const QUrl url(QStringLiteral("https://api.example.com/v1"));
        keys.writeKey(engine::hostBoundKeyName(QStringLiteral("oai"), url), test::kApiKey);
        const auto secrets = engine::knownSecrets({row(url)}, &keys);
        QCOMPARE(secrets.size(), 1);
        QCOMPARE(secrets.at(0), test::kApiKey.toUtf8());
    }
};

QTEST_GUILESS_MAIN(TestKeyBinding)
#include "tst_keybinding.moc"
