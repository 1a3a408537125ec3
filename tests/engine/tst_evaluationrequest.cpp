// The harness request is built in one place (run/evaluationrequest): for each run setting the
// document equals the golden request the engine is known to send (tst_requestsettings checks the
// same documents end to end), and the device index, seed, paths and the agent tools' quick
// timing show up as golden documents of their own.
#include "../report/goldenfile.h"
#include "run/evaluationrequest.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <functional>

using namespace kb;

namespace {

using Configure = std::function<void(engine::EvalSettings&)>;

// The settings tst_requestsettings runs with.
engine::EvalSettings baseSettings() {
    engine::EvalSettings s;
    s.device = QStringLiteral("cpu");
    s.timeoutSeconds = 20;
    s.buildTimeoutSeconds = 20;
    s.timingTrials = 7;
    s.maxTimingSeconds = 2;
    return s;
}

engine::EvaluationRequest attemptRequest() {
    engine::EvaluationRequest r;
    r.taskPath = QStringLiteral("/work/run-1/attempt-7/task.py");
    r.candidatePath = QStringLiteral("/work/run-1/attempt-7/candidate.py");
    r.buildDir = QStringLiteral("/work/build-cache/model-3");
    r.buildRoot = QStringLiteral("/work/build-cache");
    r.seed = engine::attemptSeed(0x0123456789ABCDEFULL, 7);
    return r;
}

QByteArray normalised(const QJsonObject& request) {
    QJsonObject o = request;
    for (const char* key : {"task_path", "candidate_path", "build_dir", "build_root"}) {
        if (o.contains(QLatin1String(key)))
            o.insert(QLatin1String(key), QStringLiteral("<path>"));
    }
    o.insert(QStringLiteral("seed"), QStringLiteral("<secret>"));
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

QByteArray indented(const QByteArray& compact) {
    return QJsonDocument::fromJson(compact).toJson(QJsonDocument::Indented);
}

} // namespace

Q_DECLARE_METATYPE(Configure)

class TestEvaluationRequest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void settingReachesTheRequest_data() {
        QTest::addColumn<Configure>("configure");
        QTest::addColumn<QString>("golden");
        QTest::newRow("defaults: fp32, 1e-4")
            << Configure([](engine::EvalSettings&) {}) << "request_fp32.json";
        QTest::newRow("fp16: 1e-2")
            << Configure([](engine::EvalSettings& s) { s.setPrecision(QStringLiteral("fp16")); })
            << "request_fp16.json";
        QTest::newRow("bf16: 1e-2")
            << Configure([](engine::EvalSettings& s) { s.setPrecision(QStringLiteral("bf16")); })
            << "request_bf16.json";
        QTest::newRow("fp16, explicit tolerance") << Configure([](engine::EvalSettings& s) {
            s.setPrecision(QStringLiteral("fp16"));
            s.setTolerance(2e-3, 5e-4);
        }) << "request_fp16_explicit.json";
        QTest::newRow("tf32 on") << Configure([](engine::EvalSettings& s) { s.allowTf32 = true; })
                                 << "request_tf32.json";
        QTest::newRow("compile max-autotune") << Configure([](engine::EvalSettings& s) {
            s.compileBaseline = true;
            s.compileMode = QStringLiteral("max-autotune");
        }) << "request_compile_max_autotune.json";
        QTest::newRow("compile reduce-overhead") << Configure([](engine::EvalSettings& s) {
            s.compileBaseline = true;
            s.compileMode = QStringLiteral("reduce-overhead");
        }) << "request_compile_reduce_overhead.json";
    }

    void settingReachesTheRequest() {
        QFETCH(Configure, configure);
        QFETCH(QString, golden);
        engine::EvalSettings s = baseSettings();
        configure(s);
        const QJsonObject request = engine::evaluationRequestObject(s, attemptRequest());
        const QString mismatch = test::goldenMismatch(normalised(request), golden);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    }

    // Paths, the device index and the per-attempt seed as the harness reads them.
    void cudaAttemptOnTheThirdGpu() {
        engine::EvalSettings s = baseSettings();
        s.device = QStringLiteral("cuda");
        s.setPrecision(QStringLiteral("bf16"));
        s.compileBaseline = true;
        s.vendorLibraries = QStringLiteral("gemm");
        engine::EvaluationRequest r = attemptRequest();
        r.gpuIndex = 2;
        const QString mismatch = test::goldenMismatch(indented(engine::evaluationRequestJson(s, r)),
                                                      QStringLiteral("request_cuda_gpu2.json"));
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    }

    // The agent's build and verify tools: few trials, one warm-up, no compile baseline, no build
    // cache named when the session has none.
    void quickToolRequest() {
        engine::EvalSettings s = baseSettings();
        s.timingTrials = 30;
        s.warmup = 3;
        s.compileBaseline = true;
        s.compileMode = QStringLiteral("max-autotune");
        engine::EvaluationRequest r;
        r.taskPath = QStringLiteral("/workspace/model.py");
        r.candidatePath = QStringLiteral("/workspace/model_new.py");
        r.seed = 12345;
        r.effort = engine::TimingEffort::Quick;
        const QString mismatch = test::goldenMismatch(indented(engine::evaluationRequestJson(s, r)),
                                                      QStringLiteral("request_quick_tool.json"));
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    }

    void negativeGpuIndexIsDeviceZero() {
        engine::EvaluationRequest r = attemptRequest();
        r.gpuIndex = -1; // the CPU's single slot
        QCOMPARE(engine::evaluationRequestObject(baseSettings(), r)
                     .value(QStringLiteral("gpu_index"))
                     .toInt(-1),
                 0);
    }

    void attemptSeedIsExactInJsonAndPerAttempt() {
        const quint64 runSeed = 0xFFFFFFFFFFFFFFFFULL;
        const quint64 a = engine::attemptSeed(runSeed, 1);
        const quint64 b = engine::attemptSeed(runSeed, 2);
        QVERIFY(a != b);
        QVERIFY(a < (quint64(1) << 53));
        QVERIFY(b < (quint64(1) << 53));
        QCOMPARE(engine::attemptSeed(runSeed, 1), a);
        engine::EvaluationRequest r = attemptRequest();
        r.seed = a;
        const QJsonObject o =
            QJsonDocument::fromJson(engine::evaluationRequestJson(baseSettings(), r)).object();
        QCOMPARE(static_cast<quint64>(o.value(QStringLiteral("seed")).toDouble()), a);
    }
};

QTEST_GUILESS_MAIN(TestEvaluationRequest)
#include "tst_evaluationrequest.moc"
