#pragma once
// The turns of one attempt (multi-turn and agent modes): how many were evaluated and the best
// evaluation so far. The attempt's summary (verdict, message, speedups) always follows the best
// turn; an instrument failure in a later turn leaves an earlier result standing.

#include "db/records.h"
#include "db/sqlite.h"
#include "generation/generationsettings.h"

#include <QString>
#include <functional>
#include <optional>

class QObject;

namespace kb::engine {

class TurnTracker {
public:
    // Takes the evaluation of the latest turn and rewrites its attempt summary to follow the best
    // turn (the evaluation itself is untouched). True when another turn should be asked for:
    // the session can go on, turns are left and the target is not reached.
    bool absorb(db::EvaluationRecord& record, bool sessionCanContinue,
                const GenerationSettings& settings);

    int evaluatedTurns() const { return m_evaluatedTurns; }
    const std::optional<db::EvaluationRecord>& best() const { return m_best; }

private:
    std::optional<db::EvaluationRecord> m_best;
    int m_evaluatedTurns = 0;
};

// Fills in what ties a record to its attempt: the ids and the candidate's code and hash.
void bindRecordToAttempt(db::EvaluationRecord& record, db::Id attemptId, const QString& code);

// Stores each turn of an attempt as its session reports it, with the attempt's running cost. A
// turn the database refuses goes to onFailure from the event loop, once the session that
// reported it has returned: an attempt must not finish without its turns (its tokens would go
// uncounted). Nothing is done once `owner` is gone.
std::function<void(const db::TurnRow&)>
turnStorer(db::Connection& conn, QObject* owner,
           std::function<void(db::Id attemptId, const db::Error& error)> onFailure);

} // namespace kb::engine
