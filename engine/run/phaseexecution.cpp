#include "phaseexecution.h"

#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "evaluationrequest.h"
#include "infrafaults.h"
#include "scheduler/executor.h"
#include "scheduler/harnessretry.h"
#include "scheduler/slurmexecutor.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <algorithm>

namespace kb::engine {

GpuPool evaluationSlots(const EvalSettings& settings, const QString& backend) {
    if (backend != QLatin1String("slurm"))
        return GpuPool(settings.device);
    QList<int> slots;
    for (int i = 0; i < std::max(1, settings.slurmMaxJobs); ++i)
        slots << i;
    return GpuPool::withIndices(slots);
}

Executor* makePhaseExecutor(const EvalSettings& settings, bool remote, const QString& workRoot,
                            QObject* parent) {
    if (!remote)
        return new LocalExecutor(parent);
    SlurmSettings ss;
    ss.partition = settings.slurmPartition;
    ss.gpu = settings.device == QLatin1String("cuda");
    ss.exclusive = settings.device == QLatin1String("cpu");
    ss.extraArgs = settings.slurmArgs;
    ss.spoolDir = workRoot + QStringLiteral("/slurm");
    bool ok = false;
    const int poll = qEnvironmentVariableIntValue("KBSTUDIO_SLURM_POLL_MS", &ok);
    if (ok && poll > 0)
        ss.pollMs = poll;
    return new SlurmExecutor(ss, parent);
}

QString buildCacheRoot(const QString& workRoot) {
    const QString sharedCache = qEnvironmentVariable("KBSTUDIO_BUILD_CACHE");
    return sharedCache.isEmpty() ? QString(workRoot + QStringLiteral("/build-cache")) : sharedCache;
}

QString modelBuildCacheDir(const QString& cacheRoot, qint64 modelId) {
    return cacheRoot + QStringLiteral("/model-") + QString::number(modelId);
}

ExecRequest phaseExecRequest(const EvalSettings& settings, const QString& cacheRoot,
                             const db::AttemptRow& attempt, const QString& dir,
                             const QString& resultPath, bool buildPhase, int gpu, bool remote) {
    EvaluationRequest req;
    req.taskPath = dir + QStringLiteral("/task.py");
    req.candidatePath = dir + QStringLiteral("/candidate.py");
    req.buildDir = modelBuildCacheDir(cacheRoot, attempt.modelId);
    req.buildRoot = cacheRoot;
    req.gpuIndex = remote ? 0 : gpu;
    req.seed = attemptSeed(settings.seed, attempt.id);
    ExecRequest r;
    r.phase = buildPhase ? QStringLiteral("build") : QStringLiteral("evaluate");
    r.workDir = dir;
    r.resultPath = resultPath;
    r.request = evaluationRequestJson(settings, req);
    r.timeoutMs = static_cast<int>(
        (buildPhase ? settings.buildTimeoutSeconds : settings.timeoutSeconds) * 1000);
    r.gpuIndex = gpu;
    r.label = QStringLiteral("attempt-%1").arg(attempt.id);
    return r;
}

QString newResultPath(const QString& workRoot) {
    QDir().mkpath(workRoot + QStringLiteral("/results"));
    const QString path =
        QStringLiteral("%1/results/%2.json")
            .arg(workRoot, QString::number(QRandomGenerator::system()->generate64(), 16));
    QFile::remove(path);
    return path;
}

std::optional<QString> writeAttemptFiles(const QString& dir, const QByteArray& taskSource,
                                         const QString& code) {
    const auto write = [](const QString& path, const QByteArray& bytes) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
    };
    if (write(dir + QStringLiteral("/task.py"), taskSource) &&
        write(dir + QStringLiteral("/candidate.py"), code.toUtf8()))
        return std::nullopt;
    const qint64 free = freeBytesAt(dir);
    return QStringLiteral("cannot write the attempt's files under %1%2")
        .arg(dir, free >= 0 && free < kDiskFullBytes ? QStringLiteral(" (the disk is full)")
                                                     : QString());
}

std::optional<RetryPlan> recordRetry(db::Connection& conn, const EvalSettings& settings,
                                     db::Id attemptId, const QString& reason) {
    HarnessRetryPolicy policy;
    policy.limit = settings.retryLimit;
    policy.baseSeconds = settings.retryBaseSeconds;
    db::QueueRepository queue(conn);
    const int tries = queue.tries(attemptId);
    if (tries >= policy.limit)
        return std::nullopt;
    RetryPlan plan;
    plan.delaySeconds = policy.delaySeconds(tries + 1);
    plan.number = tries + 1;
    plan.limit = policy.limit;
    queue.recordRetry(attemptId, db::LeaseRepository::now() + plan.delaySeconds,
                      reason.toStdString());
    return plan;
}

} // namespace kb::engine
