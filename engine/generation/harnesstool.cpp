#include "harnesstool.h"

#include "core/hashing.h"
#include "eval/harnessprocess.h"
#include "eval/resultparser.h"
#include "feedback.h"
#include "run/evaluationrequest.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

namespace kb::engine {
namespace {
// Seconds the harness's profiler runs (ncu, then nsys) may take together.
constexpr double kProfileSeconds = 300.0;
} // namespace

HarnessTool::HarnessTool(const GenerationContext& context, QString workspace, QObject* parent)
    : QObject(parent)
    , m_ctx(context)
    , m_workspace(std::move(workspace)) {
    m_ctx.eval.seed = 0; // the tools never see the run's secret seed
}

HarnessTool::~HarnessTool() {
    if (m_process)
        m_process->kill();
    if (!m_resultPath.isEmpty())
        QFile::remove(m_resultPath);
}

QByteArray HarnessTool::request(HarnessToolKind kind) const {
    EvaluationRequest r;
    r.taskPath = m_workspace + QStringLiteral("/model.py");
    r.candidatePath = m_workspace + QStringLiteral("/model_new.py");
    r.buildDir = m_ctx.buildCacheDir;
    r.buildRoot = m_ctx.buildCacheRoot;
    // A fresh seed per call, below 2^53 so JSON keeps it exact.
    r.seed = QRandomGenerator::system()->generate64() >> 12;
    r.effort = kind == HarnessToolKind::Benchmark ? TimingEffort::Full : TimingEffort::Quick;
    return evaluationRequestJson(m_ctx.eval, r);
}

void HarnessTool::finishLater(const HarnessToolResult& result) {
    QMetaObject::invokeMethod(
        this, [this, result] { Q_EMIT finished(result); }, Qt::QueuedConnection);
}

void HarnessTool::run(HarnessToolKind kind) {
    QFile candidate(m_workspace + QStringLiteral("/model_new.py"));
    if (!candidate.open(QIODevice::ReadOnly)) {
        finishLater(
            {{QStringLiteral("there is no model_new.py in the workspace yet: write it first"),
              true},
             {},
             {}});
        return;
    }
    m_codeHash = sha256Hex(candidate.readAll());
    QDir().mkpath(m_ctx.workDir);
    m_resultPath =
        QStringLiteral("%1/.tool-%2.json")
            .arg(m_ctx.workDir, QString::number(QRandomGenerator::system()->generate64(), 16));
    auto* proc = new HarnessProcess(this);
    m_process = proc;
    connect(proc, &HarnessProcess::finished, this,
            [this, proc, kind](const HarnessOutcome& outcome) {
                proc->deleteLater();
                onFinished(kind, outcome);
            });
    const bool build = kind == HarnessToolKind::Build;
    const bool profile = kind == HarnessToolKind::Profile;
    // The profiler's own limit (its ncu and nsys runs) comes on top of the build; the process
    // limit leaves it room to answer with its own message first.
    const double timeout = build     ? m_ctx.eval.buildTimeoutSeconds
                           : profile ? m_ctx.eval.buildTimeoutSeconds + kProfileSeconds + 180.0
                                     : m_ctx.eval.timeoutSeconds + m_ctx.eval.buildTimeoutSeconds;
    QStringList args{build     ? QStringLiteral("build")
                     : profile ? QStringLiteral("profile")
                               : QStringLiteral("evaluate"),
                     QStringLiteral("--request"), QStringLiteral("-"), QStringLiteral("--result"),
                     m_resultPath};
    if (profile)
        args << QStringLiteral("--timeout") << QString::number(kProfileSeconds);
    proc->start(args, m_workspace, static_cast<int>(timeout * 1000), request(kind));
}

void HarnessTool::onFinished(HarnessToolKind kind, const HarnessOutcome& outcome) {
    QFile f(m_resultPath);
    const QByteArray bytes = f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    f.close();
    QFile::remove(m_resultPath);
    HarnessToolResult result;
    result.codeHash = m_codeHash;
    const QJsonObject doc = QJsonDocument::fromJson(bytes).object();
    if (kind == HarnessToolKind::Profile &&
        doc.value(QStringLiteral("schema")).toString() == QLatin1String(kProfileSchema)) {
        HarnessToolResult profiled = profileResult(doc);
        profiled.codeHash = m_codeHash;
        Q_EMIT finished(profiled);
        return;
    }
    if (doc.isEmpty() ||
        doc.value(QStringLiteral("schema")).toString() != QLatin1String(kResultSchema)) {
        QString why = doc.value(QStringLiteral("message")).toString();
        if (why.isEmpty())
            why = outcome.timedOut ? QStringLiteral("the time limit was reached") : outcome.error;
        if (why.isEmpty())
            why = trimmedTail(QString::fromUtf8(outcome.stderrTail), 3000);
        result.output = {QStringLiteral("the harness gave no result: %1").arg(why), true};
        Q_EMIT finished(result);
        return;
    }
    const QString verdict = doc.value(QStringLiteral("verdict")).toString();
    if (kind == HarnessToolKind::Build && verdict == QLatin1String("built")) {
        const QJsonObject b = doc.value(QStringLiteral("build")).toObject();
        result.output = {QStringLiteral("Build succeeded (%1, %2 s). Static checks passed.")
                             .arg(b.value(QStringLiteral("status")).toString())
                             .arg(b.value(QStringLiteral("seconds")).toDouble(), 0, 'f', 1),
                         false};
        Q_EMIT finished(result);
        return;
    }
    auto parsed = parseHarnessResult(bytes, m_ctx.eval, sha256Hex(m_ctx.taskSource));
    if (!parsed.ok) {
        result.output = {
            QStringLiteral("the harness result could not be read: %1").arg(parsed.error), true};
        Q_EMIT finished(result);
        return;
    }
    QString text = evaluationSummary(parsed.record);
    if (kind == HarnessToolKind::Verify && parsed.record.evaluation.verdict == "correct")
        text += QStringLiteral(
            "(verify times only a few trials; use benchmark for reliable numbers)\n");
    result.output = {text, parsed.record.evaluation.verdict != "correct"};
    result.record = std::move(parsed.record);
    Q_EMIT finished(result);
}

HarnessToolResult HarnessTool::profileResult(const QJsonObject& doc) const {
    // The harness writes the text the model reads; a document without one (an older harness)
    // still says what went wrong.
    const QString status = doc.value(QStringLiteral("status")).toString();
    QString text = doc.value(QStringLiteral("summary")).toString();
    if (text.trimmed().isEmpty())
        text = QStringLiteral("Profile %1: %2")
                   .arg(status.isEmpty() ? QStringLiteral("failed") : status,
                        doc.value(QStringLiteral("message")).toString());
    HarnessToolResult result;
    result.output = {trimmedTail(text, 12000), status != QLatin1String("ok")};
    return result;
}

} // namespace kb::engine
