#pragma once
// The request document the harness reads (kbstudio.eval-request/1), built from the run's
// settings in one place: the run engine's build and evaluation phases and the agent's harness
// tools send the same document, differing only in paths, seed, device index and timing effort.

#include "eval/evalsettings.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QtGlobal>

namespace kb::engine {

inline constexpr const char* kEvalRequestSchema = "kbstudio.eval-request/1";

// Full: the run's timing settings and its compile baseline. Quick: the agent's build and verify
// tools, a few timing trials, one warm-up and no compile baseline.
enum class TimingEffort { Full, Quick };

struct EvaluationRequest {
    QString taskPath;
    QString candidatePath;
    // Builds are content-addressed, so a cache can be shared between databases; within it each
    // model has a folder of its own, and the harness hides the rest of the cache from it.
    // Empty: not sent.
    QString buildDir;
    QString buildRoot;
    int gpuIndex = 0;
    quint64 seed = 0; // below 2^53: JSON numbers are doubles
    TimingEffort effort = TimingEffort::Full;
};

QJsonObject evaluationRequestObject(const EvalSettings& settings, const EvaluationRequest& request);
// Compact JSON, as the harness reads it from standard input.
QByteArray evaluationRequestJson(const EvalSettings& settings, const EvaluationRequest& request);

// The per-attempt seed, derived from the run's secret seed and kept below 2^53.
quint64 attemptSeed(quint64 runSeed, qint64 attemptId);

} // namespace kb::engine
