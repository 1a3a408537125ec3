// Every way a harness call can end, and what the engine makes of it (run/phaseclassification):
// a built attempt, a record of the candidate, a failure of the candidate (time limit, crash),
// or a failure of the instrument (lost worker, error document, missing result, full disk) with
// whether it is worth another try. Words alone never make a disk full: the filesystem decides.
#include "run/faults.h"
#include "run/infrafaults.h"
#include "run/phaseclassification.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace kb;
using engine::PhaseKind;

namespace {

constexpr qint64 kPlentyFree = qint64(100) * 1024 * 1024 * 1024;

QJsonObject trials(int n) {
    QJsonArray a;
    for (int i = 0; i < n; ++i)
        a.append(QJsonObject{{QStringLiteral("index"), i},
                             {QStringLiteral("passed"), true},
                             {QStringLiteral("max_abs_error"), 1e-6},
                             {QStringLiteral("max_rel_error"), 1e-5}});
    return QJsonObject{{QStringLiteral("passed"), true}, {QStringLiteral("trials"), a}};
}

QJsonObject series(double ms) {
    return QJsonObject{{QStringLiteral("samples_ms"), QJsonArray{ms, ms, ms}},
                       {QStringLiteral("wall_ms"), 10.0}};
}

QByteArray correctDoc() {
    return QJsonDocument(
               QJsonObject{{QStringLiteral("schema"), QStringLiteral("kbstudio.eval-result/1")},
                           {QStringLiteral("verdict"), QStringLiteral("correct")},
                           {QStringLiteral("message"), QStringLiteral("ok")},
                           {QStringLiteral("correctness"), trials(5)},
                           {QStringLiteral("timing"),
                            QJsonObject{{QStringLiteral("candidate"), series(2.0)},
                                        {QStringLiteral("eager"), series(4.0)}}},
                           {QStringLiteral("environment"),
                            QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                                        {QStringLiteral("device_name"), QStringLiteral("Some CPU")},
                                        {QStringLiteral("torch"), QStringLiteral("2.1.0")}}}})
        .toJson();
}

QByteArray failedDoc(const char* verdict, const QString& message, const QString& log = {}) {
    QJsonObject o{{QStringLiteral("schema"), QStringLiteral("kbstudio.eval-result/1")},
                  {QStringLiteral("verdict"), QLatin1String(verdict)},
                  {QStringLiteral("message"), message}};
    if (!log.isEmpty())
        o.insert(QStringLiteral("build"),
                 QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")},
                             {QStringLiteral("log"), log}});
    return QJsonDocument(o).toJson();
}

QByteArray builtDoc() {
    return QJsonDocument(
               QJsonObject{{QStringLiteral("schema"), QStringLiteral("kbstudio.eval-result/1")},
                           {QStringLiteral("verdict"), QStringLiteral("built")}})
        .toJson();
}

QByteArray errorDoc(const char* kind, const char* message) {
    return QJsonDocument(
               QJsonObject{{QStringLiteral("schema"), QStringLiteral("kbstudio.eval-error/1")},
                           {QStringLiteral("error"), QLatin1String(kind)},
                           {QStringLiteral("message"), QLatin1String(message)}})
        .toJson();
}

// A harness that exited on its own with `exitCode`, leaving `bytes` in the result file.
engine::PhaseOutput exited(int exitCode, const QByteArray& bytes, bool build = false) {
    engine::PhaseOutput o;
    o.buildPhase = build;
    o.harness.finished = true;
    o.harness.exitCode = exitCode;
    o.haveFile = !bytes.isNull();
    o.bytes = bytes;
    if (exitCode != 0)
        o.harness.error = QStringLiteral("the harness exited with code %1").arg(exitCode);
    return o;
}

engine::PhaseOutput timedOut(bool build) {
    engine::PhaseOutput o;
    o.buildPhase = build;
    o.harness.timedOut = true;
    o.harness.error = QStringLiteral("time limit of 20 s reached");
    return o;
}

engine::PhaseOutput crashed() {
    engine::PhaseOutput o;
    o.buildPhase = false;
    o.harness.crashed = true;
    o.harness.error = QStringLiteral("killed by signal 11");
    return o;
}

engine::PhaseOutput lost() {
    engine::PhaseOutput o;
    o.lost = true;
    o.harness.error = QStringLiteral("the batch job vanished");
    return o;
}

engine::PhaseOutput withStderr(engine::PhaseOutput o, const char* tail) {
    o.harness.stderrTail = tail;
    return o;
}

} // namespace

Q_DECLARE_METATYPE(engine::PhaseOutput)
Q_DECLARE_METATYPE(engine::PhaseKind)

class TestPhaseClassification : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void classifies_data() {
        QTest::addColumn<engine::PhaseOutput>("output");
        QTest::addColumn<qint64>("freeBytes");
        QTest::addColumn<PhaseKind>("kind");
        QTest::addColumn<QString>("verdict"); // Record: the record's verdict
        QTest::addColumn<bool>("retry");
        QTest::addColumn<QString>("message"); // a part of it

        const QString infra = engine::kVerdictInfraError;
        const QString harness = engine::kVerdictHarnessError;
        const QString ok = QStringLiteral("correct");
        const qint64 plenty = kPlentyFree;
        const qint64 full = 1024;

        QTest::newRow("build passed") << exited(0, builtDoc(), true) << plenty << PhaseKind::Built
                                      << QString() << false << QString();
        QTest::newRow("evaluation: correct")
            << exited(0, correctDoc()) << plenty << PhaseKind::Record << ok << false << QString();
        QTest::newRow("build phase judged the candidate (static check)")
            << exited(0, failedDoc("rejected", QStringLiteral("forbidden call")), true) << plenty
            << PhaseKind::Record << QStringLiteral("rejected") << false << QString();
        QTest::newRow("build error")
            << exited(0,
                      failedDoc("build_error", QStringLiteral("2 compiler errors"),
                                QStringLiteral("error: x")),
                      true)
            << plenty << PhaseKind::Record << QStringLiteral("build_error") << false << QString();
        QTest::newRow("runtime error")
            << exited(0, failedDoc("runtime_error", QStringLiteral("CUDA error"))) << plenty
            << PhaseKind::Record << QStringLiteral("runtime_error") << false << QString();
        QTest::newRow("incorrect")
            << exited(0, failedDoc("incorrect", QStringLiteral("mismatch"))) << plenty
            << PhaseKind::Record << QStringLiteral("incorrect") << false << QString();
        // A candidate saying "no space" with a disk that has room: its own failure.
        QTest::newRow("build error quoting ENOSPC, disk has room")
            << exited(0, failedDoc("build_error", QStringLiteral("No space left on device")), true)
            << plenty << PhaseKind::Record << QStringLiteral("build_error") << false << QString();
        QTest::newRow("build error, build cache disk full")
            << exited(0,
                      failedDoc("build_error", QStringLiteral("ld failed"),
                                QStringLiteral("No space left on device")),
                      true)
            << full << PhaseKind::InstrumentFailure << infra << true
            << QStringLiteral("the disk of the build cache");
        QTest::newRow("runtime error, disk full")
            << exited(0, failedDoc("runtime_error", QStringLiteral("OSError: ENOSPC"))) << full
            << PhaseKind::InstrumentFailure << infra << true << QStringLiteral("is full");
        QTest::newRow("unreadable result")
            << exited(0, QByteArray("{ oops")) << plenty << PhaseKind::InstrumentFailure << harness
            << true << QStringLiteral("not a JSON object");

        QTest::newRow("build timed out")
            << timedOut(true) << plenty << PhaseKind::CandidateFailure << QStringLiteral("timeout")
            << false << QStringLiteral("build: time limit");
        QTest::newRow("evaluation timed out")
            << timedOut(false) << plenty << PhaseKind::CandidateFailure << QStringLiteral("timeout")
            << false << QStringLiteral("evaluation: time limit");
        QTest::newRow("crashed") << crashed() << plenty << PhaseKind::CandidateFailure
                                 << QStringLiteral("runtime_error") << false
                                 << QStringLiteral("evaluation: killed by signal 11");

        QTest::newRow("lost worker") << lost() << plenty << PhaseKind::InstrumentFailure << infra
                                     << true << QStringLiteral("lost the harness worker");
        // Error documents: exit 2 refuses the request or task for good; exit 1 is the harness
        // failing itself; 75 or an "infrastructure" error is the machinery's.
        QTest::newRow("refused (exit 2)")
            << exited(2, errorDoc("bad_task", "no Model class")) << plenty
            << PhaseKind::InstrumentFailure << harness << false
            << QStringLiteral("exited with code 2 (bad_task): no Model class");
        QTest::newRow("harness failed (exit 1)")
            << exited(1, errorDoc("internal", "KeyError")) << plenty << PhaseKind::InstrumentFailure
            << harness << true << QStringLiteral("(internal)");
        QTest::newRow("infrastructure error document, exit 2")
            << exited(2, errorDoc("infrastructure", "device lost")) << plenty
            << PhaseKind::InstrumentFailure << infra << true << QStringLiteral("device lost");
        QTest::newRow("error document, exit 75")
            << exited(engine::kHarnessInfrastructureExit, errorDoc("internal", "tempfail"))
            << plenty << PhaseKind::InstrumentFailure << infra << true
            << QStringLiteral("tempfail");
        QTest::newRow("refusal naming a full disk, disk full")
            << exited(2, errorDoc("bad_request", "No space left on device")) << full
            << PhaseKind::InstrumentFailure << infra << true << QStringLiteral("No space left");
        // No document at all.
        QTest::newRow("exit 0, no result file")
            << exited(0, QByteArray()) << plenty << PhaseKind::InstrumentFailure << infra << true
            << QStringLiteral("the harness wrote no result");
        QTest::newRow("exit 0, no result file, disk full")
            << withStderr(exited(0, QByteArray()), "OSError: [Errno 28] No space left on device")
            << full << PhaseKind::InstrumentFailure << infra << true
            << QStringLiteral("(the disk is full)");
        QTest::newRow("exit 1, no result file")
            << exited(1, QByteArray()) << plenty << PhaseKind::InstrumentFailure << harness << true
            << QStringLiteral("exited with code 1");
        QTest::newRow("exit 75, no result file")
            << exited(engine::kHarnessInfrastructureExit, QByteArray()) << plenty
            << PhaseKind::InstrumentFailure << infra << true << QStringLiteral("code 75");
        QTest::newRow("exit 1 with a result file")
            << exited(1, correctDoc()) << plenty << PhaseKind::InstrumentFailure << harness << true
            << QStringLiteral("code 1");
    }

    void classifies() {
        QFETCH(engine::PhaseOutput, output);
        QFETCH(qint64, freeBytes);
        QFETCH(PhaseKind, kind);
        QFETCH(QString, verdict);
        QFETCH(bool, retry);
        QFETCH(QString, message);
        engine::PhaseContext ctx;
        ctx.taskSourceHash = QStringLiteral("taskhash");
        ctx.buildCacheDir = QStringLiteral("/cache");
        ctx.workRoot = QStringLiteral("/work");
        ctx.freeBytes = freeBytes;
        const engine::PhaseClass c = engine::classifyPhase(output, ctx);
        QCOMPARE(static_cast<int>(c.kind), static_cast<int>(kind));
        if (kind == PhaseKind::Record)
            QCOMPARE(QString::fromStdString(c.record.attemptVerdict), verdict);
        else
            QCOMPARE(c.verdict, verdict);
        QCOMPARE(c.retry, retry);
        QVERIFY2(c.message.contains(message), qPrintable(c.message));
        // Only the instrument's failures are operational (an attempt the engine may retry
        // later); the candidate's verdicts are final.
        if (kind == PhaseKind::InstrumentFailure)
            QVERIFY(engine::isOperationalVerdict(c.verdict));
        if (kind == PhaseKind::CandidateFailure)
            QVERIFY(!engine::isOperationalVerdict(c.verdict));
    }

    void recordKeepsTheSpeedup() {
        engine::PhaseContext ctx;
        ctx.freeBytes = kPlentyFree;
        const auto c = engine::classifyPhase(exited(0, correctDoc()), ctx);
        QCOMPARE(static_cast<int>(c.kind), static_cast<int>(PhaseKind::Record));
        QVERIFY(c.record.speedupEager);
        QCOMPARE(*c.record.speedupEager, 2.0);
    }
};

QTEST_GUILESS_MAIN(TestPhaseClassification)
#include "tst_phaseclassification.moc"
