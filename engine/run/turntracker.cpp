#include "turntracker.h"

#include "core/hashing.h"
#include "db/runrepository.h"
#include "generation/feedback.h"

#include <QPointer>
#include <QTimer>

namespace kb::engine {
namespace {

void followBest(db::EvaluationRecord& record, const db::EvaluationRecord& best) {
    record.attemptVerdict = best.attemptVerdict;
    record.attemptMessage = best.attemptMessage;
    record.suspicious = best.suspicious;
    record.speedupEager = best.speedupEager;
    record.speedupCompile = best.speedupCompile;
}

} // namespace

bool TurnTracker::absorb(db::EvaluationRecord& record, bool sessionCanContinue,
                         const GenerationSettings& settings) {
    ++m_evaluatedTurns;
    // The instrument failing is not the candidate's doing: no feedback on it, no best from it.
    // An earlier turn's result stands; without one the attempt fails (and may be retried).
    if (db::attemptStatusFromString(record.attemptStatus) == db::AttemptStatus::Failed) {
        if (m_best) {
            const std::string why = record.evaluation.message;
            followBest(record, *m_best);
            record.attemptStatus = db::toString(db::AttemptStatus::Done);
            record.attemptMessage = m_best->attemptMessage + " (refinement stopped: " + why + ")";
        }
        return false;
    }
    if (!m_best || betterThan(record, *m_best))
        m_best = record;
    followBest(record, *m_best);
    return sessionCanContinue && m_evaluatedTurns < settings.turns &&
           !goodEnough(record, settings.targetSpeedup);
}

void bindRecordToAttempt(db::EvaluationRecord& record, db::Id attemptId, const QString& code) {
    record.attemptId = attemptId;
    record.candidate.attemptId = attemptId;
    record.candidate.code = code.toStdString();
    record.candidate.codeHash = sha256Hex(code).toStdString();
    record.evaluation.attemptId = attemptId;
}

std::function<void(const db::TurnRow&)>
turnStorer(db::Connection& conn, QObject* owner,
           std::function<void(db::Id attemptId, const db::Error& error)> onFailure) {
    const QPointer<QObject> guard(owner);
    return [&conn, guard, onFailure = std::move(onFailure)](const db::TurnRow& row) {
        if (!guard)
            return;
        try {
            db::RunRepository turns(conn);
            turns.addTurn(row);
            turns.updateAttemptCost(row.attemptId);
        } catch (const db::Error& e) {
            const db::Error error(e.what());
            const db::Id attempt = row.attemptId;
            QTimer::singleShot(0, guard, [guard, onFailure, error, attempt] {
                if (guard)
                    onFailure(attempt, error);
            });
        }
    };
}

} // namespace kb::engine
