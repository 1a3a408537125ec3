// The parts of generation that need no server: skill files, the settings stored with a run,
// multi-turn feedback and best-candidate choice, and redaction of what a turn stores.
#include "core/error.h"
#include "generation/feedback.h"
#include "generation/generationsettings.h"
#include "generation/providerclients.h"
#include "generation/skill.h"
#include "generation/turnrecord.h"
#include "providers/keychainkeystore.h"

#include <QDir>
#include <QTest>

using namespace kb;

namespace {
db::EvaluationRecord evaluated(const std::string& verdict, std::optional<double> eager,
                               std::optional<double> compile = {}) {
    db::EvaluationRecord r;
    r.evaluation.verdict = verdict;
    r.attemptVerdict = verdict;
    r.speedupEager = eager;
    r.speedupCompile = compile;
    return r;
}
} // namespace

class TestGenerationParts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyShippedSkillIsValid() {
        const auto skills = engine::availableSkills();
        QVERIFY(!skills.isEmpty());
        for (const auto& s : skills) {
            QCOMPARE(QDir(s.path).absolutePath().section(QLatin1Char('/'), -2, -2), s.name);
            QVERIFY(!s.description.isEmpty());
            QVERIFY(s.body.size() > 200);
        }
        const auto cuda = engine::loadSkill(engine::kDefaultSkill);
        QVERIFY(cuda.body.contains(QStringLiteral("profile")));
        QVERIFY(cuda.text.startsWith(QStringLiteral("---\n")));
    }

    void skillFrontMatterIsChecked_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("ok")
            << QStringLiteral(
                   "---\nname: my-skill\ndescription: \"Does things.\"\n---\n# Body\ntext\n")
            << QString();
        QTest::newRow("no front matter")
            << QStringLiteral("# Just markdown\n") << QStringLiteral("front matter");
        QTest::newRow("unclosed") << QStringLiteral("---\nname: a\ndescription: b\n")
                                  << QStringLiteral("not closed");
        QTest::newRow("no name") << QStringLiteral("---\ndescription: b\n---\nx\n")
                                 << QStringLiteral("no name");
        QTest::newRow("bad name") << QStringLiteral("---\nname: My Skill\ndescription: b\n---\nx\n")
                                  << QStringLiteral("lower-case");
        QTest::newRow("no description")
            << QStringLiteral("---\nname: a\n---\nx\n") << QStringLiteral("no description");
    }
    void skillFrontMatterIsChecked() {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QString why;
        const auto s = engine::parseSkill(text, &why);
        QCOMPARE(s.has_value(), error.isEmpty());
        QVERIFY2(why.contains(error), qPrintable(why));
        if (s) {
            QCOMPARE(s->name, QStringLiteral("my-skill"));
            QCOMPARE(s->description, QStringLiteral("Does things."));
            QCOMPARE(s->body, QStringLiteral("# Body\ntext"));
        }
    }

    void skillByFileAndUnknownSkill() {
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("mine.md")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("---\nname: tiled-gemm\ndescription: Tile it.\n---\nUse shared memory.\n");
        f.close();
        QCOMPARE(engine::loadSkill(f.fileName()).name, QStringLiteral("tiled-gemm"));
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::loadSkill(QStringLiteral("no-such-skill")));
    }

    void settingsRoundTripAndResolve() {
        engine::GenerationSettings g;
        g.turns = 5;
        g.maxTurns = 17;
        g.temperature = 0.2;
        g.stream = false;
        const auto back = engine::GenerationSettings::fromJson(g.toJson());
        QCOMPARE(back.turns, 5);
        QCOMPARE(back.maxTurns, 17);
        QCOMPARE(back.temperature.value_or(-1), 0.2);
        QCOMPARE(back.stream, false);
        // Agent runs carry their skill's text; one-shot runs are one turn.
        const auto agent = engine::resolveGenerationSettings(engine::kModeAgent, g);
        QCOMPARE(agent.skillName, engine::kDefaultSkill);
        QVERIFY(agent.skillText.contains(QStringLiteral("Rules")));
        QCOMPARE(engine::resolveGenerationSettings(engine::kModeOneShot, g).turns, 1);
        QVERIFY(engine::resolveGenerationSettings(engine::kModeOneShot, g).skillText.isEmpty());
        QVERIFY_THROWS_EXCEPTION(engine::Error,
                                 engine::resolveGenerationSettings(QStringLiteral("freestyle"), g));
        g.turns = 0;
        QVERIFY_THROWS_EXCEPTION(engine::Error,
                                 engine::resolveGenerationSettings(engine::kModeMultiTurn, g));
    }

    void bestCandidateChoice() {
        const auto wrong = evaluated("incorrect", {});
        const auto slow = evaluated("correct", 0.8);
        const auto fast = evaluated("correct", 2.0);
        QVERIFY(engine::betterThan(slow, wrong));
        QVERIFY(!engine::betterThan(wrong, slow));
        QVERIFY(engine::betterThan(fast, slow));
        QVERIFY(!engine::betterThan(slow, fast));
        QVERIFY(!engine::betterThan(wrong, evaluated("build_error", {})));
        // With compile numbers on both sides, compile decides.
        QVERIFY(engine::betterThan(evaluated("correct", 1.0, 1.2), evaluated("correct", 3.0, 1.1)));
        // The target is compile where measured, else eager.
        QVERIFY(engine::goodEnough(evaluated("correct", 1.06), 1.05));
        QVERIFY(!engine::goodEnough(evaluated("correct", 3.0, 1.0), 1.05));
        auto suspicious = evaluated("correct", 40.0);
        suspicious.suspicious = true;
        QVERIFY(!engine::goodEnough(suspicious, 1.05));
    }

    void feedbackSaysWhatWentWrong() {
        auto build = evaluated("build_error", {});
        db::BuildRow b;
        b.status = "failed";
        b.log = std::string(20000, 'x') + "\nmain.cpp:7: error: expected ';'\n";
        build.build = b;
        const QString text = engine::feedbackText(build, 2, 2000);
        QVERIFY(text.contains(QStringLiteral("did not build")));
        QVERIFY(text.contains(QStringLiteral("expected ';'")));
        QVERIFY(text.contains(QStringLiteral("characters left out")));
        QVERIFY(text.size() < 3000);
        QVERIFY(text.contains(QStringLiteral("2 more attempt")));

        auto wrong = evaluated("incorrect", {});
        wrong.evaluation.maxAbsError = 0.5;
        wrong.trials = {{0, true, 0.0, 0.0, 0.0, ""},
                        {1, false, 0.5, 1.0, 0.3, "max abs error 0.5 at [3, 1]"}};
        const QString w = engine::feedbackText(wrong, 1);
        QVERIFY(w.contains(QStringLiteral("1 of 2 trials failed")));
        QVERIFY(w.contains(QStringLiteral("at [3, 1]")));

        auto ok = evaluated("correct", 1.5);
        db::TimingSeriesRow c;
        c.kind = "candidate";
        c.medianMs = 2.0;
        db::TimingSeriesRow e;
        e.kind = "eager";
        e.medianMs = 3.0;
        ok.timing = {c, e};
        const QString t = engine::feedbackText(ok, 1);
        QVERIFY(t.contains(QStringLiteral("speedup 1.50x")));
        QVERIFY(t.contains(QStringLiteral("torch.compile was not measured")));
    }

    void keyStoreFallsBackToTheFile() {
        QTemporaryDir dir;
        qputenv("KBSTUDIO_CONFIG_DIR", dir.path().toUtf8());
        qputenv("KBSTUDIO_KEYSTORE", "file");
        QVERIFY(!engine::KeychainKeyStore::createIfAvailable());
        auto store = engine::defaultKeyStore();
        // Keys are stored bound to the provider's host (providers a and b below share one).
        QVERIFY(store->writeKey(
            engine::hostBoundKeyName(QStringLiteral("p"),
                                     QUrl(QStringLiteral("https://api.example.com/v1"))),
            QStringLiteral("sk-file-store-123456789")));
        QVERIFY(QFile::exists(dir.path() + QStringLiteral("/keys.json")));
        QVERIFY(store->describe().contains(dir.path()));
        // The secrets to redact: keys of the chat providers that have one.
        db::ProviderRow a;
        a.name = "p";
        a.kind = "openai";
        a.baseUrl = "https://api.example.com/v1";
        db::ProviderRow b;
        b.name = "q";
        b.kind = "anthropic";
        b.baseUrl = "https://api.example.com";
        b.settingsJson = R"({"key_name":"p"})";
        db::ProviderRow c;
        c.name = "demo";
        c.kind = "demo";
        const auto secrets = engine::knownSecrets({a, b, c}, store.get());
        QCOMPARE(secrets, QList<QByteArray>{QByteArray("sk-file-store-123456789")});
        qunsetenv("KBSTUDIO_KEYSTORE");
        qunsetenv("KBSTUDIO_CONFIG_DIR");
    }

    void storedTurnsAreRedacted() {
        const QByteArray key = "sk-unit-REDACTME-0123456789";
        engine::ChatRequest sent;
        sent.messages = {
            engine::ChatMessage::system(QStringLiteral("sys")),
            engine::ChatMessage::user(QStringLiteral("my key is sk-unit-REDACTME-0123456789"))};
        engine::ChatResponse r;
        r.content = QStringLiteral("echo: sk-unit-REDACTME-0123456789");
        r.toolCalls = {{QStringLiteral("c"), QStringLiteral("run_command"),
                        QStringLiteral("{\"command\":\"echo sk-unit-REDACTME-0123456789\"}")}};
        r.usage = {10, 5, 3, 2};
        r.costUsd = 0.25;
        const engine::TurnContext ctx{7, 3, QStringLiteral("tool"), {key}};
        const db::TurnRow t = engine::turnFromResponse(ctx, sent, r);
        for (const std::string& s : {t.prompt, t.response, t.messagesJson, t.toolCallsJson})
            QVERIFY2(s.find(key.toStdString()) == std::string::npos, s.c_str());
        QVERIFY(QString::fromStdString(t.response).contains(QStringLiteral("[redacted]")));
        QCOMPARE(t.turnIndex, 3);
        QCOMPARE(t.role, std::string("tool"));
        QCOMPARE(t.cacheReadTokens, std::int64_t(3));
        QCOMPARE(t.cacheWriteTokens, std::int64_t(2));
        QCOMPARE(*t.costUsd, 0.25);
        // a non-streamed answer has no time to first token; the model it names is kept
        QVERIFY(!t.ttftMs.has_value());
        QCOMPARE(t.modelSnapshot, std::string());
        r.model = QStringLiteral("gpt-test-2026-11-20");
        r.timeToFirstTokenMs = 412.5;
        const db::TurnRow streamed = engine::turnFromResponse(ctx, sent, r);
        QCOMPARE(streamed.modelSnapshot, std::string("gpt-test-2026-11-20"));
        QCOMPARE(streamed.ttftMs.value_or(-1.0), 412.5);
        engine::ProviderError e;
        e.message = QStringLiteral("denied for sk-unit-REDACTME-0123456789");
        e.httpStatus = 401;
        const db::TurnRow failed = engine::turnFromError(ctx, sent, e);
        QCOMPARE(failed.stopReason, std::string("error"));
        QVERIFY(failed.error.find("HTTP 401") != std::string::npos);
        QVERIFY(failed.error.find(key.toStdString()) == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestGenerationParts)
#include "tst_generationparts.moc"
