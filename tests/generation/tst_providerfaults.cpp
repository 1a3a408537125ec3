// Failures of the provider are not the model's: a wrong key (HTTP 401) on every request stops
// the run early with the provider's message, the refused attempts are provider_error (failed,
// in no score) and a resumed run asks again; the pre-flight finds the same before a run starts;
// a key the model quotes in its code is neither evaluated nor stored.
#include "core/error.h"
#include "db/evaluationrepository.h"
#include "generation/preflight.h"
#include "generationfixture.h"
#include "run/faults.h"

#include <QDirIterator>
#include <QTest>

using namespace kb;
using test::GenerationFixture;
using test::ScriptedResponse;
using test::Wire;

namespace {
const QByteArray kWrongKey =
    R"({"error":{"message":"Incorrect API key provided.","type":"invalid_request_error"}})";

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

engine::RunSpec threeTasks() {
    engine::RunSpec s;
    s.suite = QStringLiteral("sample");
    s.models = {QStringLiteral("fake/coder")}; // provider/model
    s.samples = 2;
    s.settings.device = QStringLiteral("cpu");
    s.settings.timeoutSeconds = 20;
    s.settings.buildTimeoutSeconds = 20;
    s.settings.buildJobs = 1;
    s.settings.generationJobs = 1;
    s.generation.retryBaseDelayMs = 10;
    return s;
}
} // namespace

class TestProviderFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void repeatedAuthFailuresStopTheRunAndResumeRetries() {
        GenerationFixture f(Wire::OpenAi);
        for (int i = 0; i < 3; ++i)
            f.server.enqueue(ScriptedResponse::json(401, kWrongKey));
        const db::Id run = f.engine->createRun(threeTasks());
        QSignalSpy done(f.engine.get(), &engine::RunEngine::runFinished);
        f.engine->start(run);
        QVERIFY(done.wait(60000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("failed"));
        const QString message = done.at(0).at(2).toString();
        QVERIFY2(message.contains(QStringLiteral("Incorrect API key")) &&
                     message.contains(QStringLiteral("stopped early")),
                 qPrintable(message));
        QCOMPARE(f.server.requests().size(), 3); // no fourth request was sent
        QCOMPARE(f.server.unanswered(), 0);
        auto& c = f.conn();
        QCOMPARE(q(db::RunRepository(c).run(run)->status), QStringLiteral("failed"));
        int refused = 0;
        for (const auto& a : db::RunRepository(c).attempts(run)) {
            if (a.verdict == "provider_error") {
                ++refused;
                QCOMPARE(a.status, std::string("failed"));
                QVERIFY2(q(a.message).count(QStringLiteral("HTTP 401")) == 1, a.message.c_str());
            } else {
                QCOMPARE(a.status, std::string("queued"));
            }
        }
        QCOMPARE(refused, 3);
        QCOMPARE(engine::operationalCounts(c, run).provider, 3);
        // Nothing was attempted: no sample counts against the model.
        db::Statement samples(
            c, "SELECT coalesce(sum(samples), 0) FROM task_summaries WHERE run_id = ?");
        samples.bind(1, run);
        samples.step();
        QCOMPARE(samples.int64(0), std::int64_t(0));

        // The key is fixed; resuming asks again for every attempt, the refused ones included.
        for (int i = 0; i < 6; ++i)
            f.server.enqueue(test::reply(Wire::OpenAi, test::fenced(test::scriptedCandidate(
                                                           QStringLiteral("correct 2.0")))));
        QSignalSpy again(f.engine.get(), &engine::RunEngine::runFinished);
        f.engine->start(run);
        QVERIFY(again.wait(60000));
        QVERIFY2(again.at(0).at(1).toString() == QStringLiteral("finished"),
                 qPrintable(again.at(0).at(2).toString()));
        for (const auto& a : db::RunRepository(c).attempts(run))
            QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(engine::operationalCounts(c, run).total(), 0);
        // The refused calls stay in the transcript as history.
        QVERIFY(f.log.join(QLatin1Char('\n'))
                    .contains(QStringLiteral("provider or infrastructure error queued again")));
    }

    void preflightFindsARejectedParameterBeforeTheRun() {
        GenerationFixture f(Wire::OpenAi);
        f.server.enqueue(ScriptedResponse::json(
            400,
            R"({"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}})"));
        engine::GenerationSettings g;
        g.maxTokens = 1000;
        auto check = engine::runPreflight(f.conn(), {QStringLiteral("coder")}, engine::kModeOneShot,
                                          g, f.keys.get());
        QVERIFY(!check.ok());
        QCOMPARE(check.checked, QStringList{QStringLiteral("fake/coder")});
        QVERIFY2(check.errors.at(0).contains(QStringLiteral("max_completion_tokens")) &&
                     check.errors.at(0).startsWith(QStringLiteral("fake/coder: HTTP 400")),
                 qPrintable(check.errors.at(0)));
        // The same request as the run's: the model's token field reaches the check.
        QCOMPARE(f.server.requests().at(0).json().value(QStringLiteral("max_tokens")).toInt(),
                 1000);
        QCOMPARE(f.server.requests().at(0).header("authorization"),
                 QByteArray("Bearer ") + test::kFakeKey.toUtf8());

        db::Statement set(f.conn(), "UPDATE models SET settings_json = ? WHERE name = 'coder'");
        set.bind(
               1,
               std::string(
                   R"({"token_field":"max_completion_tokens","extra_body":{"reasoning_effort":"low"}})"))
            .exec();
        f.server.enqueue(test::reply(Wire::OpenAi, QStringLiteral("ok")));
        check = engine::runPreflight(f.conn(), {QStringLiteral("fake/coder")}, engine::kModeOneShot,
                                     g, f.keys.get());
        QVERIFY2(check.ok(), qPrintable(check.errors.join(QLatin1Char('\n'))));
        const QJsonObject body = f.server.requests().at(1).json();
        QCOMPARE(body.value(QStringLiteral("max_completion_tokens")).toInt(), 1000);
        QCOMPARE(body.value(QStringLiteral("reasoning_effort")).toString(), QStringLiteral("low"));
        QVERIFY(!body.contains(QStringLiteral("max_tokens")));
    }

    void ambiguousModelNamesAskForTheProvider() {
        GenerationFixture f(Wire::OpenAi);
        db::CatalogRepository catalog(f.conn());
        db::ProviderRow other;
        other.name = "other";
        other.kind = "openai";
        other.baseUrl = "https://api.example.com/v1";
        db::ModelRow m;
        m.providerId = catalog.upsertProvider(other);
        m.name = "coder";
        catalog.upsertModel(m);
        engine::RunSpec s = threeTasks();
        s.models = {QStringLiteral("coder")};
        try {
            f.engine->createRun(s);
            QFAIL("an ambiguous model name was accepted");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(QStringLiteral("fake/coder")) &&
                         e.message().contains(QStringLiteral("other/coder")),
                     qPrintable(e.message()));
        }
        s.models = {QStringLiteral("other/coder")};
        const db::Id run = f.engine->createRun(s);
        db::Statement owner(
            f.conn(), "SELECT DISTINCT p.name FROM attempts a JOIN models m ON m.id = a.model_id "
                      "JOIN providers p ON p.id = m.provider_id WHERE a.run_id = ?");
        owner.bind(1, run);
        QVERIFY(owner.step());
        QCOMPARE(owner.text(0), std::string("other"));
        QVERIFY(!owner.step());
        s.models = {QStringLiteral("nobody/coder-x")};
        QVERIFY_THROWS_EXCEPTION(engine::Error, f.engine->createRun(s));
        // A temperature the provider would refuse mid-run is refused here.
        s.models = {QStringLiteral("fake/coder")};
        s.generation.temperature = 2.5;
        QVERIFY_THROWS_EXCEPTION(engine::Error, f.engine->createRun(s));
    }

    void aKeyInTheModelsCodeIsNeitherEvaluatedNorStored() {
        GenerationFixture f(Wire::Anthropic);
        const QString code = test::scriptedCandidate(QStringLiteral("correct 2.0")) +
                             QStringLiteral("API_KEY = \"%1\"\n").arg(test::kFakeKey);
        f.server.enqueue(test::reply(Wire::Anthropic, test::fenced(code)));
        const db::Id run = f.run(engine::kModeOneShot);
        QVERIFY(f.finished);
        const auto detail = db::EvaluationRepository(f.conn()).detail(f.attempt(run).id);
        QVERIFY(detail.candidate);
        QVERIFY2(q(detail.candidate->code).contains(QStringLiteral("API_KEY = \"[redacted]\"")),
                 detail.candidate->code.c_str());
        QVERIFY(!f.dbBytes().contains(test::kFakeKey.toUtf8()));
        QDirIterator it(f.path(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile file(it.next());
            if (file.fileName().endsWith(QLatin1String(".py")) && file.open(QIODevice::ReadOnly))
                QVERIFY2(!file.readAll().contains(test::kFakeKey.toUtf8()),
                         qPrintable(file.fileName()));
        }
    }
};

QTEST_GUILESS_MAIN(TestProviderFaults)
#include "tst_providerfaults.moc"
