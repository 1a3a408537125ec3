// Generation through the run engine against the fake provider server and the scripted harness:
// every model call is stored as a turn (messages, tool calls, tokens, cost), transient failures
// are retried, a refusal is a result, multi-turn keeps the best candidate, and the key never
// reaches the database.
#include "db/evaluationrepository.h"
#include "generationfixture.h"
#include "providers/chattypes.h"

#include <QJsonArray>
#include <QTest>

using namespace kb;
using test::fenced;
using test::GenerationFixture;
using test::reply;
using test::scriptedCandidate;
using test::ScriptedResponse;
using test::streamed;
using test::Wire;

namespace {
QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QJsonArray jsonArray(const std::string& s) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(s)).array();
}
} // namespace

class TestGeneration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneShotStoresTheWholeTurn_data() {
        QTest::addColumn<Wire>("wire");
        QTest::newRow("openai") << Wire::OpenAi;
        QTest::newRow("anthropic") << Wire::Anthropic;
    }
    void oneShotStoresTheWholeTurn() {
        QFETCH(Wire, wire);
        GenerationFixture f(wire);
        f.server.enqueue(reply(wire, fenced(scriptedCandidate(QStringLiteral("correct 2.5"))), {},
                               {}, 1000, 200, 400));
        const db::Id run = f.run(engine::kModeOneShot);
        QVERIFY(f.finished);
        const auto a = f.attempt(run);
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(*a.speedupEager, 2.5);
        const auto turns = f.turns(run);
        QCOMPARE(turns.size(), size_t(1));
        const auto& t = turns.front();
        QCOMPARE(t.role, std::string("generation"));
        QVERIFY(q(t.prompt).contains(QStringLiteral("class Model")));
        QVERIFY(q(t.response).contains(QStringLiteral("# SCRIPT: correct 2.5")));
        const QJsonArray sent = jsonArray(t.messagesJson);
        QCOMPARE(sent.size(), 1);
        QCOMPARE(sent.at(0).toObject().value(QStringLiteral("role")).toString(),
                 QStringLiteral("user"));
        QCOMPARE(t.outputTokens, std::int64_t(200));
        QCOMPARE(t.cacheReadTokens, std::int64_t(400));
        // Anthropic counts cached tokens apart from input_tokens; both are normalised to "every
        // prompt token".
        QCOMPARE(t.inputTokens, std::int64_t(wire == Wire::OpenAi ? 1000 : 1400));
        QVERIFY(t.costUsd.has_value());
        QVERIFY(*t.costUsd > 0);
        QVERIFY(t.latencyMs > 0);
        QCOMPARE(t.stopReason, std::string("end_turn"));
        db::Statement cost(f.conn(), "SELECT cost_usd FROM attempts WHERE id = ?");
        cost.bind(1, a.id);
        QVERIFY(cost.step());
        QCOMPARE(cost.real(0), *t.costUsd);
        // The key went over the wire, and nowhere into the database.
        QCOMPARE(f.server.requests().size(), 1);
        QVERIFY(f.server.requests().at(0).raw.contains(test::kFakeKey.toUtf8()));
        QVERIFY(!f.dbBytes().contains(test::kFakeKey.toUtf8()));
        QVERIFY(!f.log.join(QLatin1Char('\n')).contains(test::kFakeKey));
    }

    void refusalIsAResultNotAnError() {
        GenerationFixture f(Wire::Anthropic);
        f.server.enqueue(reply(Wire::Anthropic, QStringLiteral("I can't help with that."), {},
                               QStringLiteral("refusal")));
        const db::Id run = f.run(engine::kModeOneShot);
        QVERIFY(f.finished);
        const auto a = f.attempt(run);
        QCOMPARE(a.verdict, std::string("no_candidate"));
        QCOMPARE(a.status, std::string("done"));
        QVERIFY2(q(a.message).contains(QStringLiteral("refused")), a.message.c_str());
        QCOMPARE(f.turns(run).front().stopReason, std::string("refusal"));
    }

    void transientFailuresAreRetried_data() {
        QTest::addColumn<Wire>("wire");
        QTest::addColumn<ScriptedResponse>("first");
        const QByteArray busy = R"({"error":{"type":"rate_limit_error","message":"slow down"}})";
        QTest::newRow("429 retry-after")
            << Wire::OpenAi
            << ScriptedResponse::json(429, busy,
                                      {{QByteArray("retry-after-ms"), QByteArray("30")}});
        QTest::newRow("500") << Wire::Anthropic
                             << ScriptedResponse::json(500, R"({"error":{"message":"boom"}})");
        QTest::newRow("stream cut openai")
            << Wire::OpenAi
            << streamed(Wire::OpenAi, {QStringLiteral("```python\n# SCRI")}, std::nullopt, true);
        QTest::newRow("stream cut anthropic")
            << Wire::Anthropic
            << streamed(Wire::Anthropic, {QStringLiteral("```python\n")}, std::nullopt, true);
    }
    void transientFailuresAreRetried() {
        QFETCH(Wire, wire);
        QFETCH(ScriptedResponse, first);
        GenerationFixture f(wire);
        f.server.enqueue(first);
        const QString text = fenced(scriptedCandidate(QStringLiteral("correct 2.0")));
        // The second answer is streamed in pieces.
        f.server.enqueue(streamed(wire, {text.left(20), text.mid(20, 15), text.mid(35)}));
        engine::GenerationSettings g;
        const db::Id run = f.run(engine::kModeOneShot, g);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 2);
        const auto a = f.attempt(run);
        QCOMPARE(a.verdict, std::string("correct"));
        const auto turns = f.turns(run);
        const auto& last = turns.back();
        QVERIFY(q(last.response).contains(QStringLiteral("# SCRIPT: correct 2.0")));
        QVERIFY(last.error.empty());
    }

    void providerConcurrencyLimitHoldsAcrossAttempts_data() {
        QTest::addColumn<int>("limit");
        QTest::newRow("one at a time") << 1;
        QTest::newRow("two at once") << 2;
    }
    void providerConcurrencyLimitHoldsAcrossAttempts() {
        QFETCH(int, limit);
        GenerationFixture f(Wire::OpenAi, {{QStringLiteral("max_concurrent"), limit}});
        const QString text = fenced(scriptedCandidate(QStringLiteral("correct 2.0")));
        for (int i = 0; i < 2; ++i) {
            auto slow = streamed(Wire::OpenAi, {text.left(10), text.mid(10, 10), text.mid(20)});
            slow.chunkDelayMs = 150;
            f.server.enqueue(slow);
        }
        engine::RunSpec s;
        s.suite = QStringLiteral("sample");
        s.models = {QStringLiteral("coder")};
        s.tasks = {QStringLiteral("t1"), QStringLiteral("t2")};
        s.settings.buildJobs = 2;
        const db::Id run = f.engine->createRun(s);
        QSignalSpy done(f.engine.get(), &engine::RunEngine::runFinished);
        f.engine->start(run);
        QTRY_VERIFY_WITH_TIMEOUT(!f.server.requests().isEmpty(), 10000);
        // Both attempts generate at once; the provider's limiter decides how many requests run.
        QTest::qWait(250);
        QCOMPARE(static_cast<int>(f.server.requests().size()), limit);
        QVERIFY(done.wait(60000));
        QCOMPARE(f.server.requests().size(), 2);
        for (const auto& a : db::RunRepository(f.conn()).attempts(run))
            QCOMPARE(a.verdict, std::string("correct"));
    }

    void brokenAnswersEndWithoutACandidate_data() {
        QTest::addColumn<Wire>("wire");
        QTest::addColumn<ScriptedResponse>("answer");
        QTest::addColumn<QJsonObject>("providerSettings");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("verdict");
        QTest::newRow("malformed json")
            << Wire::OpenAi << ScriptedResponse::json(200, "{\"choices\": [ {\"mess")
            << QJsonObject() << QStringLiteral("JSON") << QStringLiteral("provider_error");
        QString huge = fenced(scriptedCandidate(QStringLiteral("correct 2.0")));
        huge += QString(20000, QLatin1Char('x'));
        QTest::newRow("over-long response")
            << Wire::Anthropic << reply(Wire::Anthropic, huge)
            << QJsonObject{{QStringLiteral("max_response_bytes"), 4096}}
            << QStringLiteral("exceeded the limit") << QStringLiteral("provider_error");
        QTest::newRow("cut at max tokens")
            << Wire::OpenAi
            << reply(Wire::OpenAi, QStringLiteral("```python\nimport torch\n"), {},
                     QStringLiteral("length"))
            << QJsonObject() << QStringLiteral("token limit") << QStringLiteral("no_candidate");
        QTest::newRow("no code") << Wire::Anthropic
                                 << reply(Wire::Anthropic, QStringLiteral("Sure, here is an idea."))
                                 << QJsonObject() << QStringLiteral("no code block")
                                 << QStringLiteral("no_candidate");
    }
    void brokenAnswersEndWithoutACandidate() {
        QFETCH(Wire, wire);
        QFETCH(ScriptedResponse, answer);
        QFETCH(QJsonObject, providerSettings);
        QFETCH(QString, message);
        QFETCH(QString, verdict);
        GenerationFixture f(wire, providerSettings);
        f.server.enqueue(answer);
        const db::Id run = f.run(engine::kModeOneShot);
        QVERIFY(f.finished);
        const auto a = f.attempt(run);
        // An answer the provider could not deliver is its failure, not the model's.
        QCOMPARE(a.verdict, verdict.toStdString());
        QCOMPARE(a.status,
                 std::string(verdict == QLatin1String("provider_error") ? "failed" : "done"));
        QVERIFY2(q(a.message).contains(message), a.message.c_str());
        QCOMPARE(f.server.requests().size(), 1);
        QVERIFY(!f.turns(run).empty());
    }

    void replayProviderReservesAStoredTranscript() {
        GenerationFixture f(Wire::OpenAi);
        engine::ChatResponse stored;
        stored.content = fenced(scriptedCandidate(QStringLiteral("correct 1.7")));
        stored.usage.inputTokens = 300;
        stored.usage.outputTokens = 40;
        const QString transcript = f.path() + QStringLiteral("/transcript.json");
        QFile out(transcript);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(engine::transcriptToJson({stored})).toJson());
        out.close();
        db::CatalogRepository catalog(f.conn());
        db::ProviderRow p;
        p.name = "stored";
        p.kind = "replay";
        p.settingsJson =
            test::compactJson({{QStringLiteral("transcript"), transcript}}).toStdString();
        db::ModelRow m;
        m.providerId = catalog.upsertProvider(p);
        m.name = "replayed";
        catalog.upsertModel(m);
        const db::Id run = f.run(engine::kModeOneShot, {}, 60000, QStringLiteral("replayed"));
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 0);
        const auto a = f.attempt(run);
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(*a.speedupEager, 1.7);
        QCOMPARE(f.turns(run).front().inputTokens, std::int64_t(300));
    }

    void multiTurnKeepsTheBestCandidate() {
        GenerationFixture f(Wire::OpenAi);
        f.server.enqueue(
            reply(Wire::OpenAi, fenced(scriptedCandidate(QStringLiteral("incorrect")))));
        f.server.enqueue(
            reply(Wire::OpenAi, fenced(scriptedCandidate(QStringLiteral("correct 3.0")))));
        f.server.enqueue(
            reply(Wire::OpenAi, fenced(scriptedCandidate(QStringLiteral("correct 1.5")))));
        engine::GenerationSettings g;
        g.turns = 3;
        g.targetSpeedup = 100; // never good enough: all three turns run
        const db::Id run = f.run(engine::kModeMultiTurn, g);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 3);
        const auto a = f.attempt(run);
        QCOMPARE(a.status, std::string("done"));
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(*a.speedupEager, 3.0);
        const auto turns = f.turns(run);
        QCOMPARE(turns.size(), size_t(3));
        QCOMPARE(turns.at(0).role, std::string("generation"));
        QCOMPARE(turns.at(1).role, std::string("feedback"));
        // The feedback on the wrong candidate went back to the model with the conversation.
        QVERIFY2(q(turns.at(1).prompt).contains(QStringLiteral("incorrect")),
                 turns.at(1).prompt.c_str());
        QCOMPARE(jsonArray(turns.at(2).messagesJson).size(), 5);
        const auto candidates = db::RunRepository(f.conn()).candidates(a.id);
        QCOMPARE(candidates.size(), size_t(3));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(candidates.at(size_t(i)).turnIndex, i);
        QVERIFY(q(candidates.at(1).code).contains(QStringLiteral("correct 3.0")));
    }

    void multiTurnStopsOnceFastEnough() {
        GenerationFixture f(Wire::Anthropic);
        f.server.enqueue(
            reply(Wire::Anthropic, fenced(scriptedCandidate(QStringLiteral("build_error")))));
        f.server.enqueue(
            reply(Wire::Anthropic, fenced(scriptedCandidate(QStringLiteral("correct 2.0")))));
        f.server.enqueue(
            reply(Wire::Anthropic, fenced(scriptedCandidate(QStringLiteral("correct 9.0")))));
        engine::GenerationSettings g;
        g.turns = 3;
        const db::Id run = f.run(engine::kModeMultiTurn, g);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 2);
        QCOMPARE(f.server.unanswered(), 1);
        // The build error's compiler message was the feedback.
        QVERIFY(q(f.turns(run).at(1).prompt).contains(QStringLiteral("expected ';'")));
        QCOMPARE(*f.attempt(run).speedupEager, 2.0);
    }

    void multiTurnHarnessFailureLaterKeepsTheBest() {
        GenerationFixture f(Wire::OpenAi);
        f.server.enqueue(
            reply(Wire::OpenAi, fenced(scriptedCandidate(QStringLiteral("correct 1.01")))));
        f.server.enqueue(reply(Wire::OpenAi, fenced(scriptedCandidate(QStringLiteral("exit 1")))));
        engine::GenerationSettings g;
        g.turns = 3;
        const db::Id run = f.run(engine::kModeMultiTurn, g);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 2);
        const auto a = f.attempt(run);
        QCOMPARE(a.status, std::string("done"));
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(*a.speedupEager, 1.01);
        QVERIFY2(q(a.message).contains(QStringLiteral("harness")), a.message.c_str());
    }

    void multiTurnRefusalLaterKeepsTheBest() {
        GenerationFixture f(Wire::OpenAi);
        f.server.enqueue(
            reply(Wire::OpenAi, fenced(scriptedCandidate(QStringLiteral("correct 1.02")))));
        f.server.enqueue(
            reply(Wire::OpenAi, QStringLiteral("No."), {}, QStringLiteral("content_filter")));
        engine::GenerationSettings g;
        g.turns = 4;
        const db::Id run = f.run(engine::kModeMultiTurn, g);
        QVERIFY(f.finished);
        const auto a = f.attempt(run);
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(*a.speedupEager, 1.02);
        QVERIFY2(q(a.message).contains(QStringLiteral("refused")), a.message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestGeneration)
#include "tst_generation.moc"
