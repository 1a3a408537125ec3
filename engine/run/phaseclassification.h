#pragma once
// What one harness call (a build or an evaluation phase of an attempt) came to, decided from
// what the engine can see: the process's exit, the executor losing it, and the result or error
// document it wrote. Pure: the run engine acts on the answer (queue the built attempt, store the
// record, finish the attempt, or retry the instrument).

#include "db/records.h"
#include "eval/evalsettings.h"
#include "eval/harnessprocess.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace kb::engine {

inline const QString kVerdictHarnessError = QStringLiteral("harness_error");

struct PhaseOutput {
    bool buildPhase = true;
    HarnessOutcome harness;
    // The worker was lost before it could report (see ExecOutcome::lost).
    bool lost = false;
    // The private result file: whether it could be opened, and what it held.
    bool haveFile = false;
    QByteArray bytes;
};

struct PhaseContext {
    EvalSettings settings;
    QString taskSourceHash;
    QString buildCacheDir; // where builds write: a full disk there is not the candidate's fault
    QString workRoot;      // where the result files go
    // Free bytes of those filesystems; unset: read from the filesystem (tests set it).
    std::optional<qint64> freeBytes;
};

enum class PhaseKind {
    Built,             // the build phase passed: the attempt goes on to evaluation
    Record,            // the harness judged the candidate: store the record
    CandidateFailure,  // no result, the candidate's doing (a time limit, a crash): verdict
    InstrumentFailure, // no result, the machinery's doing: retry when `retry`, else verdict
};

struct PhaseClass {
    PhaseKind kind = PhaseKind::InstrumentFailure;
    QString verdict; // failures: the attempt's verdict
    QString message; // failures: why
    bool retry = false;
    db::EvaluationRecord record; // Record
};

PhaseClass classifyPhase(const PhaseOutput& output, const PhaseContext& context);

// What a harness call left: its outcome and the result file, which is read and removed.
PhaseOutput takePhaseOutput(bool buildPhase, const HarnessOutcome& harness, bool lost,
                            const QString& resultPath);

// The record of a candidate that got no result: the evaluation carries the verdict and the
// settings; the instrument's failures leave the attempt failed (to be retried), the candidate's
// leave it done.
db::EvaluationRecord resultlessRecord(const QString& verdict, const QString& message,
                                      const EvalSettings& settings);

} // namespace kb::engine
