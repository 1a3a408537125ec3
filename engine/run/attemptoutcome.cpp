// Storing what an attempt came to: an evaluation record, a verdict without one, or the best
// earlier turn when a later one gave nothing; then the attempt leaves the in-flight list.

#include "db/evaluationrepository.h"
#include "db/runrepository.h"
#include "run/attemptgenerator.h"
#include "run/attemptjob.h"
#include "run/phaseclassification.h"
#include "run/turntracker.h"
#include "runengine.h"

#include <QTimer>

namespace kb::engine {

namespace {
QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}
} // namespace

void RunEngine::onNoCandidate(const std::shared_ptr<Job>& job, const QString& message) {
    job->generationSlot.reset();
    try {
        if (job->turns.best()) {
            // A later turn gave nothing (a refusal, an error): the attempt keeps its best result,
            // already stored with the evaluation that produced it.
            const auto& b = *job->turns.best();
            db::RunRepository(m_db->connection())
                .finishAttempt(
                    job->attempt.id, db::toString(db::AttemptStatus::Done), b.attemptVerdict,
                    b.attemptMessage + " (refinement stopped: " + message.toStdString() + ")");
            announceFinished(job, toQ(b.attemptVerdict), toQ(b.attemptMessage), b.suspicious,
                             b.speedupEager);
        } else {
            job->code.clear();
            finishWithoutResult(job, QStringLiteral("no_candidate"), message);
        }
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot store attempt %1").arg(job->attempt.id), e);
        return;
    }
    QTimer::singleShot(0, this, &RunEngine::pump);
}

void RunEngine::finishWithRecord(const std::shared_ptr<Job>& job, db::EvaluationRecord record) {
    if (m_generator->continueAfter(job, record))
        return;
    bindRecordToAttempt(record, job->attempt.id, job->code);
    try {
        db::EvaluationRepository(m_db->connection()).store(record);
    } catch (const db::Error& e) {
        Q_EMIT logLine(QStringLiteral("cannot store attempt %1: %2")
                           .arg(job->attempt.id)
                           .arg(QString::fromUtf8(e.what())));
        m_inFlight.removeAll(job);
        finishRun(db::RunStatus::Failed, QString::fromUtf8(e.what()));
        return;
    }
    announceFinished(job, toQ(record.attemptVerdict), toQ(record.attemptMessage), record.suspicious,
                     record.speedupEager);
}

void RunEngine::finishWithoutResult(const std::shared_ptr<Job>& job, const QString& verdict,
                                    const QString& message) {
    // The harness failing is the instrument's fault, not the candidate's: the attempt can be
    // retried.
    const bool ours = isOperationalVerdict(verdict);
    if (!job->code.isEmpty()) {
        finishWithRecord(job, resultlessRecord(verdict, message, m_settings));
        return;
    }
    db::RunRepository(m_db->connection())
        .finishAttempt(job->attempt.id,
                       db::toString(ours ? db::AttemptStatus::Failed : db::AttemptStatus::Done),
                       verdict.toStdString(), message.toStdString());
    announceFinished(job, verdict, message, false, std::nullopt);
}

void RunEngine::announceFinished(const std::shared_ptr<Job>& job, const QString& verdict,
                                 const QString& message, bool suspicious,
                                 std::optional<double> speedupEager) {
    m_inFlight.removeAll(job);
    ++m_finishedThisSession;
    AttemptResult r;
    r.runId = m_runId;
    r.attemptId = job->attempt.id;
    r.model = toQ(job->attempt.modelName);
    r.task = toQ(job->attempt.taskKey);
    r.verdict = verdict;
    r.message = message;
    r.suspicious = suspicious;
    r.speedupEager = speedupEager;
    Q_EMIT attemptFinished(r);
    emitProgress();
}

} // namespace kb::engine
