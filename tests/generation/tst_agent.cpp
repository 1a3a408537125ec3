// The tool-using agent through the run engine, against the fake provider server in both wire
// formats and the scripted harness: it writes a wrong candidate, verify says so, it fixes it,
// verify says correct and fast enough, and the loop stops; tool definitions go out in each
// protocol's format, tool results come back, every call is stored. Also the file tools'
// confinement, the sandboxed command, the turn budget and the context budget.
#include "generation/agentsession.h"
#include "generation/agentworkspace.h"
#include "generation/commandrunner.h"
#include "generation/transcriptexport.h"
#include "generationfixture.h"
#include "providers/keystore.h"

#include <QJsonArray>
#include <QTest>

using namespace kb;
using test::GenerationFixture;
using test::reply;
using test::ScriptedCall;
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

// Whether a process with exactly this command line (NUL-separated) is alive.
bool commandRunning(const QByteArray& cmdline) {
    for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (f.open(QIODevice::ReadOnly) && f.readAll().startsWith(cmdline))
            return true;
    }
    return false;
}

ScriptedCall call(const QString& id, const QString& name, const QJsonObject& args = {}) {
    return {id, name, args};
}
} // namespace

class TestAgent : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void agentFixesItsCandidateUntilFastEnough_data() {
        QTest::addColumn<Wire>("wire");
        QTest::newRow("openai") << Wire::OpenAi;
        QTest::newRow("anthropic") << Wire::Anthropic;
    }
    void agentFixesItsCandidateUntilFastEnough() {
        QFETCH(Wire, wire);
        GenerationFixture f(wire);
        const QString wrong = scriptedCandidate(QStringLiteral("incorrect"));
        f.server.enqueue(reply(wire, QStringLiteral("I will write a first version."),
                               {call(QStringLiteral("c1"), QStringLiteral("write_file"),
                                     {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                                      {QStringLiteral("content"), wrong}}),
                                call(QStringLiteral("c2"), QStringLiteral("verify"))}));
        // Streamed, with the tool call's arguments split over two fragments.
        f.server.enqueue(
            streamed(wire, {QStringLiteral("The outputs differ; "), QStringLiteral("fixing.")},
                     call(QStringLiteral("c3"), QStringLiteral("edit_file"),
                          {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                           {QStringLiteral("old_string"), QStringLiteral("incorrect")},
                           {QStringLiteral("new_string"), QStringLiteral("correct 2.0")}})));
        f.server.enqueue(reply(wire, {}, {call(QStringLiteral("c4"), QStringLiteral("verify"))}));
        const db::Id run = f.run(engine::kModeAgent);
        QVERIFY(f.finished);
        // Verified at 2x over eager (no torch.compile on the CPU) >= 1.05x: the loop stopped.
        QCOMPARE(f.server.requests().size(), 3);
        QCOMPARE(f.server.unanswered(), 0);
        const auto a = f.attempt(run);
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(*a.speedupEager, 2.0);
        const auto candidates = db::RunRepository(f.conn()).candidates(a.id);
        QCOMPARE(candidates.size(), size_t(1));
        QVERIFY(q(candidates.front().code).contains(QStringLiteral("# SCRIPT: correct 2.0")));

        const auto turns = f.turns(run);
        QCOMPARE(turns.size(), size_t(3));
        QCOMPARE(turns.at(0).role, std::string("generation"));
        QCOMPARE(turns.at(1).role, std::string("tool"));
        const QJsonArray first = jsonArray(turns.at(0).toolCallsJson);
        QCOMPARE(first.size(), 2);
        QCOMPARE(first.at(0).toObject().value(QStringLiteral("name")).toString(),
                 QStringLiteral("write_file"));
        const QJsonObject verify1 = first.at(1).toObject();
        QVERIFY(verify1.value(QStringLiteral("is_error")).toBool());
        QVERIFY2(verify1.value(QStringLiteral("result"))
                     .toString()
                     .contains(QStringLiteral("incorrect")),
                 qPrintable(verify1.value(QStringLiteral("result")).toString()));
        const QJsonObject verify2 = jsonArray(turns.at(2).toolCallsJson).at(0).toObject();
        QVERIFY(!verify2.value(QStringLiteral("is_error")).toBool());
        QVERIFY(verify2.value(QStringLiteral("result"))
                    .toString()
                    .contains(QStringLiteral("Verdict: correct")));
        QVERIFY(q(turns.at(1).response).contains(QStringLiteral("fixing.")));

        // Tools in the protocol's own format, the skill in the system instructions, tool results
        // sent back.
        const QJsonObject body1 = f.server.requests().at(0).json();
        const QJsonObject tool0 = body1.value(QStringLiteral("tools")).toArray().at(0).toObject();
        QString system;
        if (wire == Wire::OpenAi) {
            QCOMPARE(tool0.value(QStringLiteral("type")).toString(), QStringLiteral("function"));
            QCOMPARE(tool0.value(QStringLiteral("function"))
                         .toObject()
                         .value(QStringLiteral("name"))
                         .toString(),
                     QStringLiteral("list_files"));
            system = body1.value(QStringLiteral("messages"))
                         .toArray()
                         .at(0)
                         .toObject()
                         .value(QStringLiteral("content"))
                         .toString();
        } else {
            QCOMPARE(tool0.value(QStringLiteral("name")).toString(), QStringLiteral("list_files"));
            QVERIFY(tool0.contains(QStringLiteral("input_schema")));
            const QJsonValue s = body1.value(QStringLiteral("system"));
            system = s.isString() ? s.toString()
                                  : QString::fromUtf8(QJsonDocument(s.toArray()).toJson());
        }
        QVERIFY(system.contains(QStringLiteral("cuda-kernel-optimization")));
        const QByteArray body2 = f.server.requests().at(1).body;
        QVERIFY(body2.contains(wire == Wire::OpenAi ? "\"tool_call_id\":\"c2\""
                                                    : "\"tool_use_id\":\"c2\""));
        QVERIFY(!f.dbBytes().contains(test::kFakeKey.toUtf8()));
        // The skill is stored with the run.
        const auto runRow = db::RunRepository(f.conn()).run(run);
        QVERIFY(q(runRow->settingsJson)
                    .contains(QStringLiteral("\"skill\":\"cuda-kernel-optimization\"")));
    }

    void storedAgentRunIsReplayedOffline() {
        GenerationFixture f(Wire::Anthropic);
        f.server.enqueue(reply(
            Wire::Anthropic, QStringLiteral("Writing."),
            {call(QStringLiteral("w"), QStringLiteral("write_file"),
                  {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                   {QStringLiteral("content"), scriptedCandidate(QStringLiteral("incorrect"))}}),
             call(QStringLiteral("v"), QStringLiteral("verify"))}));
        f.server.enqueue(
            reply(Wire::Anthropic, QStringLiteral("Fixing."),
                  {call(QStringLiteral("e"), QStringLiteral("edit_file"),
                        {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                         {QStringLiteral("old_string"), QStringLiteral("incorrect")},
                         {QStringLiteral("new_string"), QStringLiteral("correct 1.3")}}),
                   call(QStringLiteral("v2"), QStringLiteral("verify"))}));
        const db::Id first = f.run(engine::kModeAgent);
        QVERIFY(f.finished);
        QCOMPARE(f.attempt(first).verdict, std::string("correct"));

        const auto transcript = engine::attemptTranscript(f.conn(), f.attempt(first).id);
        QCOMPARE(transcript.size(), 2);
        QCOMPARE(transcript.at(0).toolCalls.size(), 2);
        QCOMPARE(transcript.at(1).toolCalls.at(0).name, QStringLiteral("edit_file"));
        const QString file = f.path() + QStringLiteral("/agent-transcript.json");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(engine::transcriptToJson(transcript)).toJson());
        out.close();
        db::CatalogRepository catalog(f.conn());
        db::ProviderRow p;
        p.name = "replayed";
        p.kind = "replay";
        p.settingsJson = test::compactJson({{QStringLiteral("transcript"), file}}).toStdString();
        db::ModelRow m;
        m.providerId = catalog.upsertProvider(p);
        m.name = "replayed-coder";
        catalog.upsertModel(m);

        const int requestsBefore = static_cast<int>(f.server.requests().size());
        const db::Id again = f.run(engine::kModeAgent, {}, 60000, QStringLiteral("replayed-coder"));
        QVERIFY(f.finished);
        QCOMPARE(static_cast<int>(f.server.requests().size()), requestsBefore);
        const auto a = f.attempt(again);
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(*a.speedupEager, 1.3);
        const auto turns = f.turns(again);
        QCOMPARE(turns.size(), size_t(2));
        // The tools ran again, with the same results.
        const auto original = f.turns(first);
        for (size_t i = 0; i < 2; ++i) {
            const QJsonArray was = jsonArray(original.at(i).toolCallsJson);
            const QJsonArray is = jsonArray(turns.at(i).toolCallsJson);
            QCOMPARE(is.size(), was.size());
            for (qsizetype k = 0; k < is.size(); ++k)
                QCOMPARE(is.at(k).toObject().value(QStringLiteral("is_error")),
                         was.at(k).toObject().value(QStringLiteral("is_error")));
        }
    }

    void fileToolsAndCommandStayInTheWorkspace() {
        GenerationFixture f(Wire::OpenAi);
        f.server.enqueue(
            reply(Wire::OpenAi, {},
                  {call(QStringLiteral("a"), QStringLiteral("list_files")),
                   call(QStringLiteral("b"), QStringLiteral("read_file"),
                        {{QStringLiteral("path"), QStringLiteral("model.py")}}),
                   call(QStringLiteral("c"), QStringLiteral("grep"),
                        {{QStringLiteral("pattern"), QStringLiteral("class \\w+")}}),
                   call(QStringLiteral("d"), QStringLiteral("write_file"),
                        {{QStringLiteral("path"), QStringLiteral("../escape.txt")},
                         {QStringLiteral("content"), QStringLiteral("x")}}),
                   call(QStringLiteral("e"), QStringLiteral("run_command"),
                        {{QStringLiteral("command"),
                          QStringLiteral("echo hello > note.txt; cat note.txt; touch "
                                         "../outside.txt; touch /usr/kbstudio-sandbox-probe")}}),
                   call(QStringLiteral("f"), QStringLiteral("no_such_tool")),
                   call(QStringLiteral("g"), QStringLiteral("build"))}));
        f.server.enqueue(reply(Wire::OpenAi, QStringLiteral("I give up.")));
        const db::Id run = f.run(engine::kModeAgent);
        QVERIFY(f.finished);
        const auto a = f.attempt(run);
        QCOMPARE(a.verdict, std::string("no_candidate"));
        QVERIFY2(q(a.message).contains(QStringLiteral("model_new.py")), a.message.c_str());
        const QJsonArray calls = jsonArray(f.turns(run).at(0).toolCallsJson);
        QCOMPARE(calls.size(), 7);
        auto result = [&](int i) {
            return calls.at(i).toObject().value(QStringLiteral("result")).toString();
        };
        auto isError = [&](int i) {
            return calls.at(i).toObject().value(QStringLiteral("is_error")).toBool();
        };
        QVERIFY(result(0).contains(QStringLiteral("model.py")));
        QVERIFY(result(1).contains(QStringLiteral("def get_inputs")));
        QVERIFY(result(2).contains(QStringLiteral("model.py:")));
        QVERIFY(isError(3));
        QVERIFY(result(3).contains(QStringLiteral("outside the workspace")));
        const QString attemptDir =
            QStringLiteral("%1/test.work/run-%2/attempt-%3").arg(f.path()).arg(run).arg(a.id);
        QVERIFY(!QFile::exists(attemptDir + QStringLiteral("/escape.txt")));
        if (engine::probeSandbox().ok) {
            QVERIFY2(result(4).contains(QStringLiteral("hello")), qPrintable(result(4)));
            QVERIFY(QFile::exists(attemptDir + QStringLiteral("/workspace/note.txt")));
            // Only the workspace is writable inside the sandbox: the rest of the file system is
            // read-only, and what lies around the workspace is a throw-away tmpfs.
            QVERIFY(isError(4));
            QVERIFY(result(4).contains(QStringLiteral("Read-only file system")));
            QVERIFY(!QFile::exists(QStringLiteral("/usr/kbstudio-sandbox-probe")));
            QVERIFY(!QFile::exists(attemptDir + QStringLiteral("/outside.txt")));
        } else {
            QVERIFY(isError(4));
            QVERIFY(result(4).contains(QStringLiteral("no sandbox")));
        }
        QVERIFY(isError(5));
        QVERIFY(isError(6));
        QVERIFY(result(6).contains(QStringLiteral("no model_new.py")));
    }

    void keysInToolOutputReachNeitherModelNorDatabase() {
        GenerationFixture f(Wire::OpenAi);
        // A second provider's key is in the store too.
        const QString otherKey = QStringLiteral("sk-ant-other-Hh4Jj6Kk8Ll0Mm2Nn4Pp6");
        db::CatalogRepository catalog(f.conn());
        db::ProviderRow other;
        other.name = "other";
        other.kind = "anthropic";
        other.baseUrl = "https://api.anthropic.invalid";
        catalog.upsertProvider(other);
        f.keys->writeKey(
            engine::hostBoundKeyName(QStringLiteral("other"),
                                     QUrl(QStringLiteral("https://api.anthropic.invalid"))),
            otherKey);
        // A file in the workspace that holds both keys (as a candidate or a command could
        // print them), read back by the agent.
        const QString leaked = QStringLiteral("a=%1\nb=%2\n").arg(test::kFakeKey, otherKey);
        f.server.enqueue(reply(Wire::OpenAi, {},
                               {call(QStringLiteral("w"), QStringLiteral("write_file"),
                                     {{QStringLiteral("path"), QStringLiteral("notes.txt")},
                                      {QStringLiteral("content"), leaked}}),
                                call(QStringLiteral("r"), QStringLiteral("read_file"),
                                     {{QStringLiteral("path"), QStringLiteral("notes.txt")}})}));
        f.server.enqueue(reply(Wire::OpenAi, QStringLiteral("Nothing to do.")));
        const db::Id run = f.run(engine::kModeAgent);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 2);
        const QJsonArray sent =
            f.server.requests().at(1).json().value(QStringLiteral("messages")).toArray();
        const QJsonObject toolMessage = sent.last().toObject();
        QCOMPARE(toolMessage.value(QStringLiteral("role")).toString(), QStringLiteral("tool"));
        const QString content = toolMessage.value(QStringLiteral("content")).toString();
        QVERIFY2(content.contains(QStringLiteral("a=[redacted]")), qPrintable(content));
        QVERIFY(!content.contains(otherKey));
        const QByteArray db = f.dbBytes();
        QVERIFY(!db.contains(test::kFakeKey.toUtf8()));
        QVERIFY(!db.contains(otherKey.toUtf8()));
        QVERIFY(q(f.turns(run).at(0).toolCallsJson).contains(QStringLiteral("b=[redacted]")));
    }

    void keyStoreIsHiddenFromCommands() {
        // A key file outside /tmp (which the sandbox replaces anyway).
        QTemporaryDir config(QDir::currentPath() + QStringLiteral("/keystore-XXXXXX"));
        QVERIFY(config.isValid());
        qputenv("KBSTUDIO_CONFIG_DIR", config.path().toUtf8());
        engine::FileKeyStore store;
        QVERIFY(store.writeKey(QStringLiteral("someone"),
                               QStringLiteral("sk-hidden-0000111122223333")));
        GenerationFixture f(Wire::OpenAi);
        f.server.enqueue(
            reply(Wire::OpenAi, {},
                  {call(QStringLiteral("c"), QStringLiteral("run_command"),
                        {{QStringLiteral("command"),
                          QStringLiteral("ls %1; cat %2").arg(config.path(), store.path())}})}));
        f.server.enqueue(reply(Wire::OpenAi, QStringLiteral("ok")));
        const db::Id run = f.run(engine::kModeAgent);
        qunsetenv("KBSTUDIO_CONFIG_DIR");
        QVERIFY(f.finished);
        const QJsonObject result = jsonArray(f.turns(run).at(0).toolCallsJson).at(0).toObject();
        const QString text = result.value(QStringLiteral("result")).toString();
        QVERIFY(result.value(QStringLiteral("is_error")).toBool());
        QVERIFY(!text.contains(QStringLiteral("sk-hidden")));
        if (engine::probeSandbox().ok)
            QVERIFY2(text.contains(QStringLiteral("No such file")), qPrintable(text));
        else
            QVERIFY(text.contains(QStringLiteral("no sandbox")));
    }

    void turnBudgetEndsTheLoop() {
        GenerationFixture f(Wire::Anthropic);
        f.server.enqueue(reply(Wire::Anthropic, {},
                               {call(QStringLiteral("w"), QStringLiteral("write_file"),
                                     {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                                      {QStringLiteral("content"),
                                       scriptedCandidate(QStringLiteral("correct 1.01"))}})}));
        f.server.enqueue(
            reply(Wire::Anthropic, {}, {call(QStringLiteral("l"), QStringLiteral("list_files"))}));
        f.server.enqueue(
            reply(Wire::Anthropic, {}, {call(QStringLiteral("l2"), QStringLiteral("list_files"))}));
        engine::GenerationSettings g;
        g.maxTurns = 2;
        const db::Id run = f.run(engine::kModeAgent, g);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 2);
        QCOMPARE(f.attempt(run).verdict, std::string("correct"));
        QVERIFY(f.log.join(QLatin1Char('\n')).contains(QStringLiteral("turn budget")));
    }

    void cancellingStopsAnAgentMidConversation() {
        GenerationFixture f(Wire::OpenAi);
        // The first turn starts a long command; the second request is never answered.
        f.server.enqueue(
            reply(Wire::OpenAi, {},
                  {call(QStringLiteral("s"), QStringLiteral("run_command"),
                        {{QStringLiteral("command"), QStringLiteral("sleep 31.7")}})}));
        ScriptedResponse silent;
        silent.neverAnswer = true;
        f.server.enqueue(silent);
        engine::RunSpec s;
        s.suite = QStringLiteral("sample");
        s.models = {QStringLiteral("coder")};
        s.tasks = {QStringLiteral("t1"), QStringLiteral("t2")};
        s.mode = engine::kModeAgent;
        s.settings.buildJobs = 1;
        s.settings.generationJobs = 1;
        const db::Id run = f.engine->createRun(s);
        QSignalSpy done(f.engine.get(), &engine::RunEngine::runFinished);
        f.engine->start(run);
        QTRY_COMPARE_WITH_TIMEOUT(f.server.requests().size(), 1, 10000);
        if (engine::probeSandbox().ok)
            QTRY_VERIFY_WITH_TIMEOUT(commandRunning(QByteArray("sleep\0"
                                                               "31.7",
                                                               10)),
                                     10000);
        // One attempt generates while holding the only generation slot; the other waits.
        QTest::qWait(300);
        QCOMPARE(f.engine->progressSnapshot().generating, 1);
        QCOMPARE(f.engine->progressSnapshot().queued, 1);
        f.engine->cancel();
        QCOMPARE(done.count(), 1);
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QCOMPARE(db::RunRepository(f.conn()).statusCounts(run).at("cancelled"), 2);
        // The command died with its session, and nothing of the cancelled attempt answers later.
        QTest::qWait(500);
        QVERIFY(!commandRunning(QByteArray("sleep\0"
                                           "31.7",
                                           10)));
        QCOMPARE(done.count(), 1);
        QVERIFY(!f.engine->isRunning());
    }

    void contextBudgetShortensOldToolOutput() {
        QList<engine::ChatMessage> m{engine::ChatMessage::system(QStringLiteral("sys")),
                                     engine::ChatMessage::user(QStringLiteral("task"))};
        for (int i = 0; i < 6; ++i) {
            engine::ChatMessage a = engine::ChatMessage::assistant({});
            a.toolCalls = {
                {QStringLiteral("t%1").arg(i), QStringLiteral("read_file"), QStringLiteral("{}")}};
            m << a
              << engine::ChatMessage::toolResult(QStringLiteral("t%1").arg(i),
                                                 QString(5000, QLatin1Char('a' + i)));
        }
        const auto before = m;
        QCOMPARE(engine::AgentSession::applyContextBudget(m, 1000000), 0);
        QCOMPARE(m, before);
        const int cut = engine::AgentSession::applyContextBudget(m, 12000, 4);
        // 30000 characters of tool output, 12000 allowed: the oldest go first, the last two
        // tool results (in the 4 most recent messages) are kept whole.
        QCOMPARE(cut, 4);
        QVERIFY(m.at(3).content.startsWith(QStringLiteral("[older tool output removed")));
        QCOMPARE(m.at(11).content, before.at(11).content);
        QCOMPARE(m.at(13).content, before.at(13).content);
        QCOMPARE(m.at(0).content, QStringLiteral("sys"));

        // Whole files written long ago go next; the call keeps its path and stays valid JSON.
        QList<engine::ChatMessage> w{engine::ChatMessage::user(QStringLiteral("task"))};
        engine::ChatMessage write = engine::ChatMessage::assistant({});
        write.toolCalls = {
            {QStringLiteral("w"), QStringLiteral("write_file"),
             QString::fromUtf8(
                 QJsonDocument(
                     QJsonObject{{QStringLiteral("path"), QStringLiteral("model_new.py")},
                                 {QStringLiteral("content"), QString(20000, QLatin1Char('z'))}})
                     .toJson(QJsonDocument::Compact))}};
        w << write
          << engine::ChatMessage::toolResult(QStringLiteral("w"),
                                             QStringLiteral("wrote 20000 bytes"));
        for (int i = 0; i < 4; ++i)
            w << engine::ChatMessage::user(QStringLiteral("recent"));
        QCOMPARE(engine::AgentSession::applyContextBudget(w, 5000, 4), 1);
        QString why;
        const QJsonObject args = w.at(1).toolCalls.at(0).arguments(&why);
        QVERIFY(why.isEmpty());
        QCOMPARE(args.value(QStringLiteral("path")).toString(), QStringLiteral("model_new.py"));
        QVERIFY(args.value(QStringLiteral("content"))
                    .toString()
                    .startsWith(QStringLiteral("[removed")));
    }

    void workspacePathsCannotEscape_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("inside");
        QTest::newRow("plain") << QStringLiteral("model_new.py") << true;
        QTest::newRow("subfolder") << QStringLiteral("kernels/a.cu") << true;
        QTest::newRow("dot-dot inside") << QStringLiteral("kernels/../a.py") << true;
        QTest::newRow("dot-dot out") << QStringLiteral("../a.py") << false;
        QTest::newRow("absolute out") << QStringLiteral("/etc/passwd") << false;
        QTest::newRow("link out") << QStringLiteral("link/secret") << false;
    }
    void workspacePathsCannotEscape() {
        QFETCH(QString, path);
        QFETCH(bool, inside);
        QTemporaryDir dir;
        QDir().mkpath(dir.path() + QStringLiteral("/ws"));
        QFile::link(QStringLiteral("/etc"), dir.path() + QStringLiteral("/ws/link"));
        engine::AgentWorkspace ws(dir.path() + QStringLiteral("/ws"));
        QString why;
        const QString resolved = ws.resolve(path, &why);
        QCOMPARE(!resolved.isEmpty(), inside);
        QCOMPARE(why.isEmpty(), inside);
    }
};

QTEST_GUILESS_MAIN(TestAgent)
#include "tst_agent.moc"
