// Each run setting reaches the harness: a run is created with the setting, evaluated by the
// scripted harness stand-in, and the request the engine sent (paths and the secret seed
// normalised) must equal a golden request document. The prompt template reaches the model.
#include "../report/goldenfile.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"
#include "fakeresourcesdir.h"
#include "run/runengine.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <functional>

using namespace kb;

namespace {

// Put in front of the stand-in harness: every request it gets is kept under <resources>/requests
// as <phase>.json before the stand-in reads it.
constexpr const char* kCapture = R"PY(import io as _io, json as _json, os as _os, sys as _sys
_args = _sys.argv[1:]
_path = _args[_args.index("--request") + 1]
_raw = _sys.stdin.read() if _path == "-" else open(_path).read()
_dir = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "..", "requests")
_os.makedirs(_dir, exist_ok=True)
with open(_os.path.join(_dir, _args[0] + ".json"), "w") as _f:
    _f.write(_raw)
_sys.stdin = _io.StringIO(_raw)
)PY";

using Configure = std::function<void(engine::RunSpec&)>;

QByteArray normalised(const QByteArray& raw) {
    QJsonObject o = QJsonDocument::fromJson(raw).object();
    for (const char* key : {"task_path", "candidate_path", "build_dir", "build_root"}) {
        if (o.contains(QLatin1String(key)))
            o.insert(QLatin1String(key), QStringLiteral("<path>"));
    }
    if (o.contains(QStringLiteral("seed")))
        o.insert(QStringLiteral("seed"), QStringLiteral("<secret>"));
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

} // namespace

Q_DECLARE_METATYPE(Configure)

class TestRequestSettings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void settingReachesTheHarness_data() {
        QTest::addColumn<Configure>("configure");
        QTest::addColumn<QString>("golden");
        QTest::newRow("defaults: fp32, 1e-4")
            << Configure([](engine::RunSpec&) {}) << "request_fp32.json";
        QTest::newRow("fp16: 1e-2") << Configure([](engine::RunSpec& s) {
            s.settings.setPrecision(QStringLiteral("fp16"));
        }) << "request_fp16.json";
        QTest::newRow("bf16: 1e-2") << Configure([](engine::RunSpec& s) {
            s.settings.setPrecision(QStringLiteral("bf16"));
        }) << "request_bf16.json";
        // The GUI sets the field directly: the tolerance still follows the precision.
        QTest::newRow("bf16 set directly")
            << Configure([](engine::RunSpec& s) { s.settings.precision = QStringLiteral("bf16"); })
            << "request_bf16.json";
        QTest::newRow("fp16, explicit tolerance") << Configure([](engine::RunSpec& s) {
            s.settings.setPrecision(QStringLiteral("fp16"));
            s.settings.setTolerance(2e-3, 5e-4);
        }) << "request_fp16_explicit.json";
        QTest::newRow("tf32 on") << Configure([](engine::RunSpec& s) {
            s.settings.allowTf32 = true;
        }) << "request_tf32.json";
        QTest::newRow("compile max-autotune") << Configure([](engine::RunSpec& s) {
            s.settings.compileBaseline = true;
            s.settings.compileMode = QStringLiteral("max-autotune");
        }) << "request_compile_max_autotune.json";
        QTest::newRow("compile reduce-overhead") << Configure([](engine::RunSpec& s) {
            s.settings.compileBaseline = true;
            s.settings.compileMode = QStringLiteral("reduce-overhead");
        }) << "request_compile_reduce_overhead.json";
    }

    void settingReachesTheHarness() {
        QFETCH(Configure, configure);
        QFETCH(QString, golden);
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2.0")}});
        const QString harness = res.path() + QStringLiteral("/harness/kbharness/__main__.py");
        QFile h(harness);
        QVERIFY(h.open(QIODevice::ReadOnly));
        const QByteArray original = h.readAll();
        h.close();
        QVERIFY(h.open(QIODevice::WriteOnly | QIODevice::Truncate));
        h.write(QByteArray(kCapture) + original);
        h.close();

        engine::RunSpec spec;
        spec.suite = QStringLiteral("sample");
        spec.models = {QStringLiteral("m")};
        spec.tasks = {QStringLiteral("t1")};
        spec.settings.device = QStringLiteral("cpu");
        spec.settings.timeoutSeconds = 20;
        spec.settings.buildTimeoutSeconds = 20;
        spec.settings.timingTrials = 7;
        spec.settings.maxTimingSeconds = 2;
        configure(spec);
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QVERIFY(done.wait(60000));
        const auto attempts = db::RunRepository(e.database().connection()).attempts(run);
        QCOMPARE(attempts.size(), size_t(1));
        QCOMPARE(attempts[0].verdict, std::string("correct"));

        QFile request(res.path() + QStringLiteral("/requests/evaluate.json"));
        QVERIFY2(request.open(QIODevice::ReadOnly), "the harness got no evaluation request");
        const QString mismatch = test::goldenMismatch(normalised(request.readAll()), golden);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
        // The build request carries the same settings.
        QFile build(res.path() + QStringLiteral("/requests/build.json"));
        QVERIFY(build.open(QIODevice::ReadOnly));
        QCOMPARE(normalised(build.readAll()), normalised([&] {
                     QFile again(res.path() + QStringLiteral("/requests/evaluate.json"));
                     again.open(QIODevice::ReadOnly);
                     return again.readAll();
                 }()));
    }

    void promptTemplateReachesTheModel_data() {
        QTest::addColumn<QString>("chosen");
        QTest::addColumn<QString>("expectedName");
        QTest::addColumn<QString>("marker");
        QTest::newRow("suite default (sample: kbstudio)")
            << ""
            << "kbstudio"
            << "You write high-performance C++ CPU kernels";
        QTest::newRow("kernelbench") << "kernelbench"
                                     << "kernelbench"
                                     << "scaled_silu_kernel";
    }
    void promptTemplateReachesTheModel() {
        QFETCH(QString, chosen);
        QFETCH(QString, expectedName);
        QFETCH(QString, marker);
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2.0")}});
        engine::RunSpec spec;
        spec.suite = QStringLiteral("sample");
        spec.models = {QStringLiteral("m")};
        spec.tasks = {QStringLiteral("t1")};
        spec.settings.device = QStringLiteral("cpu");
        spec.settings.setPrecision(QStringLiteral("fp16"));
        spec.generation.promptTemplate = chosen;
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        const db::Id run = e.createRun(spec);
        auto& c = e.database().connection();
        const auto row = db::RunRepository(c).run(run);
        const QJsonObject generation =
            QJsonDocument::fromJson(QByteArray::fromStdString(row->settingsJson))
                .object()
                .value(QStringLiteral("generation"))
                .toObject();
        QCOMPARE(generation.value(QStringLiteral("prompt_template")).toString(), expectedName);
        QCOMPARE(generation.value(QStringLiteral("prompt_template_sha256")).toString().size(), 64);
        QVERIFY(generation.value(QStringLiteral("prompt_template_text"))
                    .toString()
                    .contains(QStringLiteral("{task_source}")));
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QVERIFY(done.wait(60000));
        const auto attempt = db::RunRepository(c).attempts(run).at(0);
        const auto detail = db::EvaluationRepository(c).detail(attempt.id);
        QVERIFY(!detail.turns.empty());
        const QString prompt = QString::fromStdString(detail.turns[0].prompt);
        QVERIFY2(prompt.contains(marker), qPrintable(prompt.left(400)));
        QVERIFY2(prompt.contains(QStringLiteral("0.01")), "the fp16 tolerance is in the prompt");
    }
};

QTEST_GUILESS_MAIN(TestRequestSettings)
#include "tst_requestsettings.moc"
