#include "phaseclassification.h"

#include "eval/resultparser.h"
#include "faults.h"
#include "infrafaults.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {
namespace {

QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}

PhaseClass instrumentFailure(QString message, bool retry, QString verdict = kVerdictHarnessError) {
    PhaseClass c;
    c.kind = PhaseKind::InstrumentFailure;
    c.verdict = std::move(verdict);
    c.message = std::move(message);
    c.retry = retry;
    return c;
}

PhaseClass candidateFailure(QString verdict, QString message) {
    PhaseClass c;
    c.kind = PhaseKind::CandidateFailure;
    c.verdict = std::move(verdict);
    c.message = std::move(message);
    return c;
}

} // namespace

PhaseClass classifyPhase(const PhaseOutput& out, const PhaseContext& ctx) {
    const HarnessOutcome& outcome = out.harness;
    const qint64 freeBytes = ctx.freeBytes.value_or(-1);
    const auto diskFull = [&](const QString& text, const QString& dir) {
        return isDiskFullFailure(text, dir, freeBytes);
    };
    // Failures of the instrument (never of the candidate) are tried again, with backoff.
    if (out.lost)
        return instrumentFailure(QStringLiteral("lost the harness worker: %1").arg(outcome.error),
                                 true, kVerdictInfraError);
    const QJsonObject doc = QJsonDocument::fromJson(out.bytes).object();
    const bool haveResult = outcome.finished && outcome.exitCode == 0 && out.haveFile;
    if (!haveResult && outcome.finished &&
        doc.value(QStringLiteral("schema")).toString() == QLatin1String("kbstudio.eval-error/1")) {
        // The harness refused the request or the task (exit 2: no use trying again) or failed
        // itself (exit 1).
        const QString kind = doc.value(QStringLiteral("error")).toString();
        const QString text = QStringLiteral("the harness exited with code %1 (%2): %3")
                                 .arg(outcome.exitCode)
                                 .arg(kind, doc.value(QStringLiteral("message")).toString());
        const bool infra = harnessReportsInfrastructure(outcome.exitCode, kind) ||
                           diskFull(text, ctx.buildCacheDir);
        return instrumentFailure(text, outcome.exitCode != 2 || infra,
                                 infra ? kVerdictInfraError : kVerdictHarnessError);
    }
    if (!haveResult) {
        const QString phase =
            out.buildPhase ? QStringLiteral("build: ") : QStringLiteral("evaluation: ");
        if (outcome.timedOut)
            return candidateFailure(QStringLiteral("timeout"), phase + outcome.error);
        if (outcome.crashed)
            return candidateFailure(QStringLiteral("runtime_error"), phase + outcome.error);
        // No result file from a harness that ran: it exited 0 but could not write it (a full
        // disk, a file size limit), or said it failed. Not the candidate's fault.
        QString text =
            outcome.error.isEmpty() ? QStringLiteral("the harness wrote no result") : outcome.error;
        const bool full = diskFull(text + QString::fromUtf8(outcome.stderrTail), ctx.workRoot);
        if (full)
            text += QStringLiteral(" (the disk is full)");
        const bool infra = full || outcome.exitCode == 0 ||
                           harnessReportsInfrastructure(outcome.exitCode, QString());
        return instrumentFailure(text, true, infra ? kVerdictInfraError : kVerdictHarnessError);
    }
    if (out.buildPhase &&
        doc.value(QStringLiteral("verdict")).toString() == QLatin1String("built")) {
        PhaseClass c;
        c.kind = PhaseKind::Built;
        return c;
    }
    auto parsed = parseHarnessResult(out.bytes, ctx.settings, ctx.taskSourceHash);
    if (!parsed.ok)
        return instrumentFailure(parsed.error, true);
    // A build or run that failed because the disk is full says nothing of the candidate.
    const QString verdict = toQ(parsed.record.attemptVerdict);
    if ((verdict == QLatin1String("build_error") || verdict == QLatin1String("runtime_error")) &&
        diskFull(toQ(parsed.record.attemptMessage) + QLatin1Char('\n') +
                     (parsed.record.build ? toQ(parsed.record.build->log) : QString()),
                 ctx.buildCacheDir)) {
        return instrumentFailure(
            QStringLiteral("the disk of the build cache %1 is full: %2")
                .arg(ctx.buildCacheDir, toQ(parsed.record.attemptMessage).left(300)),
            true, kVerdictInfraError);
    }
    PhaseClass c;
    c.kind = PhaseKind::Record;
    c.record = std::move(parsed.record);
    return c;
}

PhaseOutput takePhaseOutput(bool buildPhase, const HarnessOutcome& harness, bool lost,
                            const QString& resultPath) {
    PhaseOutput out;
    out.buildPhase = buildPhase;
    out.harness = harness;
    out.lost = lost;
    QFile f(resultPath);
    out.haveFile = f.open(QIODevice::ReadOnly);
    out.bytes = out.haveFile ? f.readAll() : QByteArray();
    f.close();
    QFile::remove(resultPath);
    return out;
}

db::EvaluationRecord resultlessRecord(const QString& verdict, const QString& message,
                                      const EvalSettings& settings) {
    db::EvaluationRecord record;
    record.evaluation.verdict = verdict.toStdString();
    record.evaluation.message = message.toStdString();
    record.evaluation.settingsJson =
        QJsonDocument(settings.toJson()).toJson(QJsonDocument::Compact).toStdString();
    record.attemptVerdict = verdict.toStdString();
    record.attemptMessage = message.toStdString();
    record.attemptStatus = db::toString(isOperationalVerdict(verdict) ? db::AttemptStatus::Failed
                                                                      : db::AttemptStatus::Done);
    return record;
}

} // namespace kb::engine
