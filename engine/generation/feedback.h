#pragma once
// What a multi-turn run tells the model about its last candidate (Kevin-style feedback): the
// build error, trimmed; the correctness failure; or the timing against eager and compile.
// Built from what the engine stored, never from anything secret (seeds, result paths).

#include "db/records.h"

#include <QString>

namespace kb::engine {

// The speed the candidate must beat: compile when it was measured, else eager.
// nullopt when the record is not a correct evaluation.
std::optional<double> targetSpeedupOf(const db::EvaluationRecord& record);

// Whether a turn is good enough to stop refining.
bool goodEnough(const db::EvaluationRecord& record, double targetSpeedup);

// Whether `a` is a better result for the attempt than `b`: correct beats not correct, then the
// higher speedup (vs compile when both have it, else vs eager).
bool betterThan(const db::EvaluationRecord& a, const db::EvaluationRecord& b);

// What happened to a candidate, for the model: verdict, build errors, correctness, timing.
QString evaluationSummary(const db::EvaluationRecord& record, int maxChars = 6000);
QString feedbackText(const db::EvaluationRecord& record, int turnsLeft, int maxChars = 6000);

// The tail of a long text, cut at a line break, with a note of what was left out.
QString trimmedTail(const QString& text, int maxChars);

} // namespace kb::engine
