// End to end through kbstudio-cli and the real harness in CPU mode, with a scripted model on
// the fake provider server: register the provider (key from an environment variable into the
// key file), its model and prices, test the connection, then an agent run that writes a wrong
// kernel, builds it, sees verify report it incorrect, fixes it, verifies it correct, and whose
// final candidate the engine evaluates as correct. Then the key scan: the key went over the
// wire and appears nowhere in the database file, the engine's output, the attempt's transcript
// or any export format.
#include "../generation/scriptedreplies.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "fakeproviderserver.h"
#include "report/exporter.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;
using test::reply;
using test::ScriptedCall;
using test::ScriptedResponse;
using test::Wire;

namespace {
const QByteArray kKey = "sk-e2e-Vw3Nq8Hr2LtXc6Zb1Jm9Pd4Ks7Fg5Ay0";

const QString kCandidate = QStringLiteral(R"PY(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i)
        out[i] = in[i] > 0.0f ? in[i] : 0.0f;
    return y;
}

torch::Tensor relu_draft(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i)
        out[i] = in[i];
    return y;
}
"""

ext = load_inline(name="e2e_agent_relu", cpp_sources=[source], functions=["relu_forward", "relu_draft"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_draft(x)
)PY");

struct Cli {
    int exitCode = -1;
    QByteArray out;
};

// Runs the CLI while this process's event loop keeps serving the fake provider.
Cli runCli(const QStringList& args, const QProcessEnvironment& env, int timeoutMs = 240000) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    QSignalSpy done(&p, &QProcess::finished);
    p.start(QStringLiteral(KBSTUDIO_CLI), args);
    Cli r;
    if (!done.wait(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    } else {
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }
    r.out = p.readAll();
    return r;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
} // namespace

class TestAgentProvider : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void agentRunThroughTheCliLeavesNoKeyBehind() {
        QTemporaryDir dir;
        const QString db = dir.path() + QStringLiteral("/e2e.kbdb");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KBSTUDIO_CONFIG_DIR"), dir.path() + QStringLiteral("/config"));
        env.insert(QStringLiteral("KBSTUDIO_KEYSTORE"), QStringLiteral("file"));
        env.insert(QStringLiteral("E2E_PROVIDER_KEY"), QString::fromLatin1(kKey));
        test::FakeProviderServer server;
        const QString url = server.url(QStringLiteral("/v1")).toString();

        Cli c =
            runCli({QStringLiteral("provider"), QStringLiteral("add"), QStringLiteral("--name"),
                    QStringLiteral("scripted"), QStringLiteral("--kind"), QStringLiteral("openai"),
                    QStringLiteral("--base-url"), url, QStringLiteral("--key-env"),
                    QStringLiteral("E2E_PROVIDER_KEY"), QStringLiteral("--db"), db},
                   env);
        QVERIFY2(c.exitCode == 0, c.out.constData());
        QVERIFY(c.out.contains("key stored in"));
        QFile keyFile(dir.path() + QStringLiteral("/config/keys.json"));
        QVERIFY(keyFile.exists());
        QCOMPARE(keyFile.permissions() &
                     (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
                 QFile::Permissions());
        c = runCli({QStringLiteral("model"), QStringLiteral("add"), QStringLiteral("--provider"),
                    QStringLiteral("scripted"), QStringLiteral("--name"), QStringLiteral("coder"),
                    QStringLiteral("--price-in"), QStringLiteral("3"),
                    QStringLiteral("--price-out"), QStringLiteral("15"), QStringLiteral("--db"),
                    db},
                   env);
        QVERIFY2(c.exitCode == 0, c.out.constData());

        // Test connection: the model list, then a one-token request.
        server.enqueue(ScriptedResponse::json(
            200, R"({"object":"list","data":[{"id":"coder","object":"model"}]})"));
        server.enqueue(reply(Wire::OpenAi, QStringLiteral("ok"), {}, {}, 12, 1));
        c = runCli({QStringLiteral("provider"), QStringLiteral("test"), QStringLiteral("scripted"),
                    QStringLiteral("--db"), db},
                   env);
        QVERIFY2(c.exitCode == 0, c.out.constData());
        QVERIFY2(c.out.contains("including coder"), c.out.constData());
        QCOMPARE(server.requests().at(0).path, QByteArray("/v1/models"));
        QCOMPARE(server.requests().at(1).json().value(QStringLiteral("max_tokens")).toInt(), 1);

        // The agent: a wrong first version, verify, the fix, verify again, done.
        const QString fixedCall = QStringLiteral("ext.relu_forward(x)");
        server.enqueue(reply(Wire::OpenAi, QStringLiteral("First version."),
                             {{QStringLiteral("w1"),
                               QStringLiteral("write_file"),
                               {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                                {QStringLiteral("content"), kCandidate}}},
                              {QStringLiteral("b1"), QStringLiteral("build"), {}},
                              {QStringLiteral("v1"), QStringLiteral("verify"), {}}}));
        server.enqueue(reply(Wire::OpenAi,
                             QStringLiteral("The draft copies its input; calling the real kernel."),
                             {{QStringLiteral("e1"),
                               QStringLiteral("edit_file"),
                               {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                                {QStringLiteral("old_string"), QStringLiteral("ext.relu_draft(x)")},
                                {QStringLiteral("new_string"), fixedCall}}},
                              {QStringLiteral("v2"), QStringLiteral("verify"), {}}}));
        server.enqueue(reply(Wire::OpenAi, QStringLiteral("Done: the kernel is correct.")));
        c = runCli({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("sample"),
                    QStringLiteral("--models"), QStringLiteral("coder"), QStringLiteral("--tasks"),
                    QStringLiteral("l1-relu"), QStringLiteral("--mode"), QStringLiteral("agent"),
                    QStringLiteral("--max-turns"), QStringLiteral("6"),
                    QStringLiteral("--temperature"), QStringLiteral("0.25"),
                    QStringLiteral("--max-tokens"), QStringLiteral("4000"),
                    QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--trials"),
                    QStringLiteral("2"), QStringLiteral("--timing-trials"), QStringLiteral("3"),
                    QStringLiteral("--jobs"), QStringLiteral("1"),
                    // the scripted replies are the agent's turns; the pre-flight request has
                    // tests of its own (e2e.providercli)
                    QStringLiteral("--no-preflight"), QStringLiteral("--db"), db},
                   env, 280000);
        QVERIFY2(c.exitCode == 0, c.out.constData());
        const QByteArray engineOutput = c.out;
        // 2 connection-test requests, then 2 or 3 agent turns (the third is not asked for when
        // the fixed kernel already beats eager by 5%).
        QVERIFY(server.requests().size() >= 4);
        QVERIFY(server.requests().at(2).raw.contains(kKey));
        const QJsonObject agentRequest = server.requests().at(2).json();
        QCOMPARE(agentRequest.value(QStringLiteral("temperature")).toDouble(), 0.25);
        QCOMPARE(agentRequest.value(QStringLiteral("max_tokens")).toInt(), 4000);
        // the agent's tools reach the wire by name: the workspace, the sandboxed command, and
        // the harness's compile, verify, benchmark and Nsight profile steps
        QStringList toolNames;
        for (const auto& tool : agentRequest.value(QStringLiteral("tools")).toArray()) {
            const QJsonObject t = tool.toObject();
            toolNames << (t.contains(QStringLiteral("function"))
                              ? t.value(QStringLiteral("function")).toObject()
                              : t)
                             .value(QStringLiteral("name"))
                             .toString();
        }
        QCOMPARE(toolNames, (QStringList{QStringLiteral("list_files"), QStringLiteral("read_file"),
                                         QStringLiteral("write_file"), QStringLiteral("edit_file"),
                                         QStringLiteral("grep"), QStringLiteral("run_command"),
                                         QStringLiteral("build"), QStringLiteral("verify"),
                                         QStringLiteral("benchmark"), QStringLiteral("profile")}));

        db::Database database(db.toStdString());
        db::RunRepository runs(database.connection());
        const auto attempts = runs.attempts();
        QCOMPARE(attempts.size(), size_t(1));
        const auto& a = attempts.front();
        QCOMPARE(a.mode, std::string("agent"));
        QVERIFY2(a.verdict == "correct", (a.verdict + ": " + a.message).c_str());
        const auto turns = runs.turns(a.id);
        QVERIFY(turns.size() >= 2);
        const QJsonArray firstCalls =
            QJsonDocument::fromJson(QByteArray::fromStdString(turns.at(0).toolCallsJson)).array();
        QCOMPARE(firstCalls.size(), 3);
        const QString built =
            firstCalls.at(1).toObject().value(QStringLiteral("result")).toString();
        QVERIFY2(built.contains(QStringLiteral("Build succeeded")), qPrintable(built));
        const QString verify1 =
            firstCalls.at(2).toObject().value(QStringLiteral("result")).toString();
        QVERIFY2(verify1.contains(QStringLiteral("Verdict: incorrect")), qPrintable(verify1));
        const QJsonArray secondCalls =
            QJsonDocument::fromJson(QByteArray::fromStdString(turns.at(1).toolCallsJson)).array();
        const QString verify2 =
            secondCalls.at(1).toObject().value(QStringLiteral("result")).toString();
        QVERIFY2(verify2.contains(QStringLiteral("Verdict: correct")), qPrintable(verify2));
        const auto candidates = runs.candidates(a.id);
        QCOMPARE(candidates.size(), size_t(1));
        QVERIFY(QString::fromStdString(candidates.front().code).contains(fixedCall));
        db::Statement cost(database.connection(), "SELECT cost_usd FROM attempts WHERE id = ?");
        cost.bind(1, a.id);
        QVERIFY(cost.step() && cost.real(0) > 0);

        // The attempt's transcript, for a replay provider.
        const QString transcript = dir.path() + QStringLiteral("/transcript.json");
        c = runCli({QStringLiteral("provider"), QStringLiteral("transcript"),
                    QStringLiteral("--attempt"), QString::number(a.id), QStringLiteral("--out"),
                    transcript, QStringLiteral("--db"), db},
                   env);
        QVERIFY2(c.exitCode == 0, c.out.constData());
        const QJsonArray stored = QJsonDocument::fromJson(readAll(transcript)).array();
        QCOMPARE(stored.size(), static_cast<qsizetype>(turns.size()));
        QCOMPARE(stored.at(0).toObject().value(QStringLiteral("tool_calls")).toArray().size(), 3);

        // The key scan: the database file, the engine's output, the transcript, every export.
        QByteArray scanned =
            readAll(db) + readAll(db + QStringLiteral("-wal")) + engineOutput + readAll(transcript);
        const QStringList formats = report::exportFormatNames();
        QVERIFY(formats.size() >= 7);
        for (const QString& format : formats) {
            const QString outPath = dir.path() + QStringLiteral("/export.") + format;
            c = runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                        QStringLiteral("--format"), format, QStringLiteral("--out"), outPath},
                       env);
            QVERIFY2(c.exitCode == 0, c.out.constData());
            const QByteArray bytes = readAll(outPath);
            QVERIFY2(!bytes.isEmpty(), qPrintable(format));
            scanned += bytes + c.out;
        }
        QVERIFY(scanned.contains("coder"));
        QVERIFY(!scanned.contains(kKey));
        QVERIFY(!scanned.contains(kKey.right(16)));
    }

    void badOptionsAreUsageErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("mode") << QStringList{QStringLiteral("run"), QStringLiteral("--models"),
                                             QStringLiteral("demo-a"), QStringLiteral("--mode"),
                                             QStringLiteral("freestyle")}
                              << QStringLiteral("--mode must be");
        QTest::newRow("turns") << QStringList{QStringLiteral("run"),
                                              QStringLiteral("--models"),
                                              QStringLiteral("demo-a"),
                                              QStringLiteral("--mode"),
                                              QStringLiteral("multi-turn"),
                                              QStringLiteral("--turns"),
                                              QStringLiteral("0")}
                               << QStringLiteral("at least 1");
        QTest::newRow("temperature")
            << QStringList{QStringLiteral("run"), QStringLiteral("--models"),
                           QStringLiteral("demo-a"), QStringLiteral("--temperature"),
                           QStringLiteral("hot")}
            << QStringLiteral("--temperature must be");
        QTest::newRow("kind") << QStringList{QStringLiteral("provider"), QStringLiteral("add"),
                                             QStringLiteral("--name"),   QStringLiteral("x"),
                                             QStringLiteral("--kind"),   QStringLiteral("gemini")}
                              << QStringLiteral("--kind must be");
        QTest::newRow("url")
            << QStringList{QStringLiteral("provider"),   QStringLiteral("add"),
                           QStringLiteral("--name"),     QStringLiteral("x"),
                           QStringLiteral("--kind"),     QStringLiteral("openai"),
                           QStringLiteral("--base-url"), QStringLiteral("not a url")}
            << QStringLiteral("--base-url");
        QTest::newRow("key env") << QStringList{QStringLiteral("provider"),
                                                QStringLiteral("add"),
                                                QStringLiteral("--name"),
                                                QStringLiteral("x"),
                                                QStringLiteral("--kind"),
                                                QStringLiteral("anthropic"),
                                                QStringLiteral("--base-url"),
                                                QStringLiteral("https://api.anthropic.com"),
                                                QStringLiteral("--key-env"),
                                                QStringLiteral("KBSTUDIO_NO_SUCH_VARIABLE")}
                                 << QStringLiteral("KBSTUDIO_NO_SUCH_VARIABLE");
        QTest::newRow("price") << QStringList{QStringLiteral("model"),      QStringLiteral("add"),
                                              QStringLiteral("--provider"), QStringLiteral("x"),
                                              QStringLiteral("--name"),     QStringLiteral("m"),
                                              QStringLiteral("--price-in"), QStringLiteral("cheap")}
                               << QStringLiteral("prices must be");
    }
    void badOptionsAreUsageErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KBSTUDIO_CONFIG_DIR"), dir.path());
        const Cli c = runCli(
            args + QStringList{QStringLiteral("--db"), dir.path() + QStringLiteral("/x.kbdb")}, env,
            30000);
        QCOMPARE(c.exitCode, 2);
        QVERIFY2(QString::fromUtf8(c.out).contains(message), c.out.constData());
        QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/keys.json")));
    }
};

QTEST_GUILESS_MAIN(TestAgentProvider)
#include "tst_agentprovider.moc"
