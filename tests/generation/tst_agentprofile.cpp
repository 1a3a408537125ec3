// The agent's profile tool through the run engine, against the fake provider server in both wire
// formats. The harness's `profile` subcommand is a stand-in that answers with the summary the
// project's own report code (kbharness/ncureport.py) makes of a stored Nsight Compute and Nsight
// Systems output; every other subcommand goes to the scripted harness. The summary reaches the
// model's next request and the stored transcript; a profile that cannot be made is a tool error
// the model reads, never a verdict.
#include "generation/agenttools.h"
#include "generation/transcriptexport.h"
#include "generationfixture.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QTest>

using namespace kb;
using test::GenerationFixture;
using test::reply;
using test::ScriptedCall;
using test::scriptedCandidate;
using test::Wire;

namespace {

// Replaces the copied scripted harness's entry point: `profile` is answered here, the rest by
// the scripted harness (renamed scripted.py). A candidate line "# PROFILE: <status>" picks a
// failure document ("crash": no document, exit status 1).
const char* kProfileStub = R"PY(import importlib.util
import json
import os
import runpy
import sys

REPORT = @REPORT@
NCU = @NCU@
NSYS = @NSYS@
HERE = os.path.dirname(os.path.abspath(__file__))

if sys.argv[1:2] == ["profile"]:
    args = sys.argv[1:]
    request = json.load(sys.stdin)
    result = args[args.index("--result") + 1]
    mode = "ok"
    for line in open(request["candidate_path"]).read().splitlines():
        if line.startswith("# PROFILE:"):
            mode = line.split()[2]
    with open(os.path.join(os.path.dirname(request["candidate_path"]), "..", "profile-calls.log"), "a") as log:
        log.write(json.dumps({"args": args, "request": request}) + "\n")
    if mode == "crash":
        sys.stderr.write("profiler stand-in failing on purpose\n")
        sys.exit(1)
    spec = importlib.util.spec_from_file_location("kb_ncureport", REPORT)
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    if mode == "ok":
        doc = report.summarize(report.parse_ncu_csv(open(NCU).read()),
                               report.parse_nsys_kernel_summary(open(NSYS).read()), calls=3, kernel_limit=40)
        doc.update(status="ok", message="", ncu_version="2024.3.2", device_name="NVIDIA H200")
    else:
        doc = {"status": mode, "message": "Nsight Compute (ncu) is not installed on the GPU host"}
    doc["schema"] = "kbstudio.profile-result/1"
    doc["summary"] = report.format_summary(doc)
    with open(result, "w") as f:
        json.dump(doc, f)
    sys.exit(0)
runpy.run_path(os.path.join(HERE, "scripted.py"), run_name="__main__")
)PY";

QString pyString(const QString& s) {
    return QString::fromUtf8(QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact))
        .mid(1)
        .chopped(1);
}

bool installProfileStub(const QString& resources) {
    const QString dir = resources + QStringLiteral("/harness/kbharness");
    if (!QFile::rename(dir + QStringLiteral("/__main__.py"), dir + QStringLiteral("/scripted.py")))
        return false;
    const QString fixtures = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/../harness/fixtures/ncu/");
    QString text = QString::fromUtf8(kProfileStub);
    text.replace(
        QStringLiteral("@REPORT@"),
        pyString(QStringLiteral(KBSTUDIO_SOURCE_RESOURCES "/harness/kbharness/ncureport.py")));
    text.replace(QStringLiteral("@NCU@"), pyString(fixtures + QStringLiteral("ncu_raw.csv")));
    text.replace(QStringLiteral("@NSYS@"), pyString(fixtures + QStringLiteral("nsys_stats.txt")));
    QFile f(dir + QStringLiteral("/__main__.py"));
    return f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) > 0;
}

ScriptedCall call(const QString& id, const QString& name, const QJsonObject& args = {}) {
    return {id, name, args};
}

QList<ScriptedCall> writeAndProfile(const QString& candidate) {
    return {call(QStringLiteral("w"), QStringLiteral("write_file"),
                 {{QStringLiteral("path"), QStringLiteral("model_new.py")},
                  {QStringLiteral("content"), candidate}}),
            call(QStringLiteral("p"), QStringLiteral("profile"))};
}

// The text of the tool result for call `id` in a request body, in either wire format.
QString toolResultIn(const QJsonObject& body, Wire wire, const QString& id) {
    for (const auto& v : body.value(QStringLiteral("messages")).toArray()) {
        const QJsonObject m = v.toObject();
        if (wire == Wire::OpenAi) {
            if (m.value(QStringLiteral("tool_call_id")).toString() == id)
                return m.value(QStringLiteral("content")).toString();
            continue;
        }
        for (const auto& b : m.value(QStringLiteral("content")).toArray()) {
            const QJsonObject block = b.toObject();
            if (block.value(QStringLiteral("tool_use_id")).toString() != id)
                continue;
            const QJsonValue c = block.value(QStringLiteral("content"));
            if (c.isString())
                return c.toString();
            QString text;
            for (const auto& part : c.toArray())
                text += part.toObject().value(QStringLiteral("text")).toString();
            return text;
        }
    }
    return {};
}

QJsonObject storedCall(GenerationFixture& f, db::Id run, int turn, int index) {
    const auto turns = f.turns(run);
    return QJsonDocument::fromJson(QByteArray::fromStdString(turns.at(turn).toolCallsJson))
        .array()
        .at(index)
        .toObject();
}

} // namespace

class TestAgentProfile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void toolIsDescribedToTheModel() {
        const auto tools = engine::agentToolDefinitions();
        auto find = [&tools](const QString& name) -> const engine::ToolDefinition* {
            for (const auto& t : tools)
                if (t.name == name)
                    return &t;
            return nullptr;
        };
        const engine::ToolDefinition* profile = find(QStringLiteral("profile"));
        QVERIFY(profile);
        for (const char* what : {"Nsight Compute", "occupancy", "throughput", "FLOP/byte",
                                 "roofline", "memory-, compute- or latency-bound", "hint"})
            QVERIFY2(profile->description.contains(QLatin1String(what)),
                     qPrintable(profile->description));
        // The full evaluation with timing is its own tool.
        const engine::ToolDefinition* benchmark = find(QStringLiteral("benchmark"));
        QVERIFY(benchmark);
        QVERIFY(benchmark->description.contains(QStringLiteral("torch.compile")));
    }

    void summaryReachesModelAndTranscript_data() {
        QTest::addColumn<Wire>("wire");
        QTest::newRow("openai") << Wire::OpenAi;
        QTest::newRow("anthropic") << Wire::Anthropic;
    }
    void summaryReachesModelAndTranscript() {
        QFETCH(Wire, wire);
        GenerationFixture f(wire);
        QVERIFY(installProfileStub(f.path()));
        f.server.enqueue(reply(wire, QStringLiteral("A first version, then a profile."),
                               writeAndProfile(scriptedCandidate(QStringLiteral("correct 1.01")))));
        f.server.enqueue(
            reply(wire, QStringLiteral("The GELU kernel is at 79% of DRAM bandwidth.")));
        const db::Id run = f.run(engine::kModeAgent);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 2);

        // The model's next request carries the summary as the profile call's result.
        const QString sent =
            toolResultIn(f.server.requests().at(1).json(), wire, QStringLiteral("p"));
        QVERIFY2(
            sent.startsWith(QStringLiteral("Profile of model_new.py (Nsight Compute 2024.3.2 + "
                                           "Nsight Systems, NVIDIA H200")),
            qPrintable(sent));
        for (const char* what :
             {"GPU time by kernel (nsys, real clocks)", "gelu_tanh_kernel", "78.3%",
              "vectorized_elementwise_kernel<…>", "occupancy 83.5% achieved / 100% theoretical",
              "SM throughput 31.4% of peak", "memory 80.2% (DRAM 78.6%) of peak",
              "2.37 FLOP/byte, below the FP32 ridge at 11.2, memory-bound",
              "Hint: gelu_tanh_kernel runs at 79% of DRAM bandwidth"})
            QVERIFY2(sent.contains(QString::fromUtf8(what)), what);

        // The same text is stored with the call, as a successful tool result.
        const QJsonObject stored = storedCall(f, run, 0, 1);
        QCOMPARE(stored.value(QStringLiteral("name")).toString(), QStringLiteral("profile"));
        QVERIFY(!stored.value(QStringLiteral("is_error")).toBool());
        QCOMPARE(stored.value(QStringLiteral("result")).toString(), sent);
        const auto transcript = engine::attemptTranscript(f.conn(), f.attempt(run).id);
        QCOMPARE(transcript.at(0).toolCalls.at(1).name, QStringLiteral("profile"));

        // The harness was asked for a profile of the workspace's candidate with a fresh seed, and
        // the attempt is still evaluated as usual when the model stops.
        QStringList logs;
        QDirIterator it(f.path(), {QStringLiteral("profile-calls.log")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            logs << it.next();
        QCOMPARE(logs.size(), 1);
        QFile calls(logs.first());
        QVERIFY(calls.open(QIODevice::ReadOnly));
        const QJsonObject first = QJsonDocument::fromJson(calls.readLine()).object();
        const QStringList args = first.value(QStringLiteral("args")).toVariant().toStringList();
        QCOMPARE(args.first(), QStringLiteral("profile"));
        QVERIFY(args.contains(QStringLiteral("--timeout")));
        const QJsonObject req = first.value(QStringLiteral("request")).toObject();
        QVERIFY(req.value(QStringLiteral("candidate_path"))
                    .toString()
                    .endsWith(QStringLiteral("/workspace/model_new.py")));
        QCOMPARE(req.value(QStringLiteral("schema")).toString(),
                 QStringLiteral("kbstudio.eval-request/1"));
        QCOMPARE(f.attempt(run).verdict, std::string("correct"));
    }

    void failedProfileIsAToolError_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("expected");
        QTest::newRow("ncu missing")
            << QStringLiteral("unavailable")
            << QStringLiteral(
                   "Profile failed (unavailable): Nsight Compute (ncu) is not installed");
        QTest::newRow("harness crash")
            << QStringLiteral("crash") << QStringLiteral("the harness gave no result");
    }
    void failedProfileIsAToolError() {
        QFETCH(QString, mode);
        QFETCH(QString, expected);
        GenerationFixture f(Wire::OpenAi);
        QVERIFY(installProfileStub(f.path()));
        const QString candidate = scriptedCandidate(QStringLiteral("correct 1.01")) +
                                  QStringLiteral("# PROFILE: ") + mode + QLatin1Char('\n');
        f.server.enqueue(reply(Wire::OpenAi, {}, writeAndProfile(candidate)));
        f.server.enqueue(reply(Wire::OpenAi, QStringLiteral("No profiler; stopping.")));
        const db::Id run = f.run(engine::kModeAgent);
        QVERIFY(f.finished);
        QCOMPARE(f.server.requests().size(), 2);
        const QString sent =
            toolResultIn(f.server.requests().at(1).json(), Wire::OpenAi, QStringLiteral("p"));
        QVERIFY2(sent.contains(expected), qPrintable(sent));
        const QJsonObject stored = storedCall(f, run, 0, 1);
        QVERIFY(stored.value(QStringLiteral("is_error")).toBool());
        QCOMPARE(stored.value(QStringLiteral("result")).toString(), sent);
        // Not the attempt's verdict: the candidate is evaluated as usual.
        QCOMPARE(f.attempt(run).verdict, std::string("correct"));
    }
};

QTEST_GUILESS_MAIN(TestAgentProfile)
#include "tst_agentprofile.moc"
