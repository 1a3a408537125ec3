#pragma once
// Where an attempt's build and evaluation phases run: the evaluation slots of a run (GPUs, the
// CPU's single slot, or Slurm jobs at once), the executor of a phase (this host, or a Slurm
// batch job for remote evaluations) and the private file the harness writes its result to.

#include "db/records.h"
#include "db/sqlite.h"
#include "eval/evalsettings.h"
#include "scheduler/executor.h"
#include "scheduler/gpupool.h"

#include <QByteArray>
#include <QString>
#include <optional>

class QObject;

namespace kb::engine {

// The evaluation slots of a run on `backend` (local or slurm).
GpuPool evaluationSlots(const EvalSettings& settings, const QString& backend);

// remote: a Slurm batch job (spooled under workRoot/slurm); else a local process.
Executor* makePhaseExecutor(const EvalSettings& settings, bool remote, const QString& workRoot,
                            QObject* parent);

// The harness's build cache: KBSTUDIO_BUILD_CACHE when set (builds are content-addressed, so
// databases can share one), else workRoot/build-cache.
QString buildCacheRoot(const QString& workRoot);
// One folder per model: a candidate's sandbox may write only its own model's builds (and sees
// no other model's), so no model can replace or empty a build another one loads.
QString modelBuildCacheDir(const QString& cacheRoot, qint64 modelId);

// What the executor runs for one phase of an attempt: the harness request (the attempt's files,
// its seed, the device index: 0 for a remote job, which sees only the GPU it was given) and the
// phase's time limit.
ExecRequest phaseExecRequest(const EvalSettings& settings, const QString& cacheRoot,
                             const db::AttemptRow& attempt, const QString& dir,
                             const QString& resultPath, bool buildPhase, int gpu, bool remote);

// A fresh result file under workRoot/results, outside every attempt's folder, under a name the
// candidate cannot guess (the folder is created, the file is not there).
QString newResultPath(const QString& workRoot);

// Writes the attempt's task.py and candidate.py into its folder; says why not when it cannot.
std::optional<QString> writeAttemptFiles(const QString& dir, const QByteArray& taskSource,
                                         const QString& code);

// A retry of an attempt whose harness call failed for the instrument's reasons, recorded in the
// queue (tries and the time of the next try), with backoff; none once the run's limit is reached.
struct RetryPlan {
    double delaySeconds = 0;
    int number = 0; // 1 for the first retry
    int limit = 0;
};
std::optional<RetryPlan> recordRetry(db::Connection& conn, const EvalSettings& settings,
                                     db::Id attemptId, const QString& reason);

} // namespace kb::engine
