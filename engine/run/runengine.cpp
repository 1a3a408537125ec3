#include "runengine.h"

#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "providers/redaction.h"
#include "run/attemptgenerator.h"
#include "run/attemptjob.h"
#include "run/phaseclassification.h"
#include "run/phaseexecution.h"
#include "run/runclaim.h"
#include "run/runcreation.h"
#include "run/turntracker.h"
#include "scheduler/executor.h"

#include <QDir>
#include <QTimer>

namespace kb::engine {

namespace {
QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

RunEngine::RunEngine(const QString& dbPath, QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<kb::engine::RunProgress>();
    qRegisterMetaType<kb::engine::AttemptResult>();
    m_db = openRunDatabase(dbPath);
    m_workRoot = workRootFor(dbPath);
    m_lease = std::make_unique<EngineLease>(m_db->connection());
    connect(m_lease.get(), &EngineLease::renewed, this, &RunEngine::onLeaseRenewed);
    connect(m_lease.get(), &EngineLease::renewFailed, this, &RunEngine::onLeaseRenewFailed);
    m_generator = std::make_unique<AttemptGenerator>(m_db->connection());
    connect(m_generator.get(), &AttemptGenerator::logLine, this, &RunEngine::logLine);
    AttemptGenerator::Callbacks callbacks;
    callbacks.wanted = [this](const std::shared_ptr<Job>& j) { return m_inFlight.contains(j); };
    callbacks.candidate = std::bind_front(&RunEngine::onCandidate, this);
    callbacks.noCandidate = [this](const std::shared_ptr<Job>& j, const QString& message) {
        m_providerFaults.noteAnswer(toQ(j->attempt.modelName));
        onNoCandidate(j, message);
    };
    callbacks.providerFailed = std::bind_front(&RunEngine::onProviderFailed, this);
    callbacks.turnNotStored = [this](db::Id attempt, const db::Error& error) {
        // An attempt must not finish without its turns (its tokens would go uncounted).
        if (m_runId != 0)
            failOnDatabase(QStringLiteral("cannot store a turn of attempt %1").arg(attempt), error);
    };
    m_generator->setCallbacks(std::move(callbacks));
}

RunEngine::~RunEngine() {
    shutdownScheduling();
}

void RunEngine::ensureDemoCatalog() {
    installDemoCatalog(m_db->connection());
}

db::Id RunEngine::createRun(const RunSpec& spec) {
    return createRunFromSpec(m_db->connection(), spec);
}

void RunEngine::setKeyStore(std::shared_ptr<KeyStore> keys) {
    m_generator->setKeyStore(std::move(keys));
}

void RunEngine::start(db::Id runId) {
    if (m_runId != 0)
        throw Error(QStringLiteral("run %1 is already running").arg(m_runId));
    RunClaim claim;
    try {
        claim = claimRun(m_db->connection(), runId, *m_lease);
    } catch (const db::Error& e) {
        throw Error(
            QStringLiteral("cannot start run %1: %2").arg(runId).arg(QString::fromUtf8(e.what())));
    }
    m_settings = claim.settings;
    m_backend = claim.backend;
    m_runId = runId;
    m_cancelling = false;
    m_paused = false;
    m_pausedSignalled = false;
    m_building = m_evaluating = 0;
    m_generator->releaseAll();
    m_generator->beginRun(runId, m_settings, buildCacheDir());
    m_finishedThisSession = 0;
    m_evalMeter.reset();
    m_clock.start();
    for (const QString& note : claim.resumeNotes(runId))
        Q_EMIT logLine(note);
    m_providerFaults.reset();
    m_pending.clear();
    for (db::Id id : claim.queued)
        m_pending.enqueue(id);
    m_gpus = evaluationSlots(m_settings, m_backend);
    QDir().mkpath(m_workRoot);
    emitProgress();
    QTimer::singleShot(0, this, &RunEngine::pump);
}

void RunEngine::pump() {
    if (m_runId == 0)
        return;
    // On the CPU, builds and timing share the cores: never time while something compiles.
    const bool exclusiveTiming = m_settings.device == QLatin1String("cpu") &&
                                 m_backend == QLatin1String("local") &&
                                 m_settings.cpuTimingExclusive;
    try {
        db::LeaseRepository leases(m_db->connection());
        // Generation has its own slots: waiting on a provider never holds up a build. It runs
        // ahead of the builds by at most one round of build slots.
        const int buildSlots = std::max(1, m_settings.buildJobs);
        while (!m_paused && !m_pending.isEmpty() &&
               m_generator->generating() < std::max(1, m_settings.generationJobs) &&
               m_generator->generating() + m_toBuild.size() < 2 * buildSlots &&
               !(exclusiveTiming && m_evaluating > 0)) {
            const db::Id id = m_pending.dequeue();
            // Cancelled meanwhile, or taken by another engine: not ours to do.
            if (!leases.acquireAttempt(id, ownerId().toStdString(), db::LeaseRepository::now(),
                                       m_lease->leaseSeconds()))
                continue;
            prepare(id);
            if (m_runId == 0)
                return;
        }
        while (!m_toBuild.isEmpty() && m_building < buildSlots &&
               !(exclusiveTiming && m_evaluating > 0))
            startPhase(m_toBuild.dequeue(), true);
        // Built work goes to the next free GPU; builds above keep running ahead of it.
        while (!m_built.isEmpty() && m_gpus.hasFree() && !(exclusiveTiming && m_building > 0))
            startPhase(m_built.dequeue(), false);
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot schedule the next attempt"), e);
        return;
    }
    if (m_runId == 0)
        return;
    if (m_pending.isEmpty() && m_toBuild.isEmpty() && m_built.isEmpty() && m_inFlight.isEmpty()) {
        finishRun(db::RunStatus::Finished, {});
    } else if (m_paused && m_inFlight.isEmpty() && !m_pausedSignalled) {
        m_pausedSignalled = true;
        emitProgress();
        Q_EMIT paused(m_runId);
    }
}

void RunEngine::prepare(db::Id attemptId) {
    auto& conn = m_db->connection();
    db::RunRepository runs(conn);
    db::CatalogRepository catalog(conn);
    auto job = std::make_shared<Job>();
    const auto attempt = runs.attempt(attemptId);
    const auto task = attempt ? catalog.task(attempt->taskId) : std::nullopt;
    const auto model = attempt ? catalog.model(attempt->modelId) : std::nullopt;
    if (!attempt || !task || !model)
        return;
    job->attempt = *attempt;
    job->task = *task;
    runs.setAttemptStatus(attemptId, db::toString(db::AttemptStatus::Generating));
    job->dir = QStringLiteral("%1/run-%2/attempt-%3").arg(m_workRoot).arg(m_runId).arg(attemptId);
    QDir(job->dir).removeRecursively();
    QDir().mkpath(job->dir);
    m_inFlight.append(job);

    if (const auto error = m_generator->start(job, *model))
        finishWithoutResult(job, QStringLiteral("no_candidate"), *error);
}

void RunEngine::onCandidate(const std::shared_ptr<Job>& job, const QString& code) {
    job->generationSlot.reset();
    m_providerFaults.noteAnswer(toQ(job->attempt.modelName));
    // A key the model quotes (or an agent digs up) is neither evaluated nor stored.
    job->code = redactSecrets(code, job->secrets);
    if (const auto error = writeAttemptFiles(job->dir, job->task.source.c_str(), job->code)) {
        try {
            finishWithoutResult(job, kVerdictInfraError, *error);
        } catch (const db::Error& e) {
            failOnDatabase(QStringLiteral("cannot store attempt %1").arg(job->attempt.id), e);
            return;
        }
        QTimer::singleShot(0, this, &RunEngine::pump);
        return;
    }
    m_toBuild.enqueue(job);
    QTimer::singleShot(0, this, &RunEngine::pump);
}

QString RunEngine::buildCacheDir() const {
    return buildCacheRoot(m_workRoot);
}

void RunEngine::onProviderFailed(const std::shared_ptr<Job>& job, const QString& message,
                                 int httpStatus) {
    job->generationSlot.reset();
    const QString model = toQ(job->attempt.modelName);
    try {
        if (job->turns.best()) {
            // A later turn could not be asked: the attempt keeps its best evaluated result.
            onNoCandidate(job, QStringLiteral("provider error: %1").arg(message));
            return;
        }
        job->code.clear();
        finishWithoutResult(job, kVerdictProviderError, message);
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot store attempt %1").arg(job->attempt.id), e);
        return;
    }
    if (const auto stop = m_providerFaults.noteFailure(model, httpStatus, message)) {
        abortRun(*stop);
        return;
    }
    QTimer::singleShot(0, this, &RunEngine::pump);
}

void RunEngine::startPhase(const std::shared_ptr<Job>& job, bool buildPhase) {
    if (!db::QueueRepository(m_db->connection())
             .advanceAttempt(job->attempt.id,
                             db::toString(buildPhase ? db::AttemptStatus::Building
                                                     : db::AttemptStatus::Evaluating))) {
        dropJob(job); // cancelled while it waited
        QTimer::singleShot(0, this, &RunEngine::pump);
        return;
    }
    // The result goes to a private file outside the attempt's folder, under a name the candidate
    // cannot guess; the request (with the secret seed) goes through standard input only (a
    // batch job reads it from a file only the user can open, deleted before the harness starts).
    job->resultPath = newResultPath(m_workRoot);
    const bool remote = !buildPhase && m_backend == QLatin1String("slurm");
    Execution exec;
    exec.build = buildPhase;
    if (!buildPhase) {
        m_evalMeter.start();
        m_evalMeter.note(m_gpus.busy());
        exec.gpu = m_gpus.acquire();
    }
    Executor* executor = makePhaseExecutor(m_settings, remote, m_workRoot, this);
    exec.executor = executor;
    m_running.insert(job.get(), exec);
    ++(buildPhase ? m_building : m_evaluating);
    connect(executor, &Executor::finished, this,
            [this, job, executor, buildPhase](const ExecOutcome& outcome) {
                executor->deleteLater();
                if (!m_inFlight.contains(job) || !m_running.contains(job.get()))
                    return; // cancelled
                endExecution(job.get(), false);
                onPhaseFinished(job, buildPhase, outcome);
            });
    executor->start(phaseExecRequest(m_settings, buildCacheDir(), job->attempt, job->dir,
                                     job->resultPath, buildPhase, exec.gpu, remote));
    emitProgress();
}

void RunEngine::onPhaseFinished(const std::shared_ptr<Job>& job, bool buildPhase,
                                const ExecOutcome& exec) {
    if (m_cancelling || m_runId == 0)
        return;
    const PhaseOutput out = takePhaseOutput(buildPhase, exec.harness, exec.lost, job->resultPath);
    PhaseContext ctx;
    ctx.settings = m_settings;
    ctx.taskSourceHash = toQ(job->task.sourceHash);
    ctx.buildCacheDir = buildCacheDir();
    ctx.workRoot = m_workRoot;
    PhaseClass result = classifyPhase(out, ctx);
    try {
        switch (result.kind) {
        case PhaseKind::Built:
            m_built.enqueue(job);
            QTimer::singleShot(0, this, &RunEngine::pump);
            emitProgress();
            return;
        case PhaseKind::Record:
            finishWithRecord(job, std::move(result.record));
            break;
        case PhaseKind::CandidateFailure:
            finishWithoutResult(job, result.verdict, result.message);
            break;
        case PhaseKind::InstrumentFailure: {
            if (result.retry && retryLater(job, buildPhase, result.message))
                return;
            const int tries = db::QueueRepository(m_db->connection()).tries(job->attempt.id);
            finishWithoutResult(
                job, result.verdict,
                tries > 0
                    ? QStringLiteral("%1 (gave up after %2 retries)").arg(result.message).arg(tries)
                    : result.message);
            break;
        }
        }
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot store attempt %1").arg(job->attempt.id), e);
        return;
    }
    QTimer::singleShot(0, this, &RunEngine::pump);
}

RunProgress RunEngine::progressSnapshot() {
    RunProgress p;
    p.runId = m_runId;
    if (m_runId == 0)
        return p;
    try {
        p.setStatusCounts(db::RunRepository(m_db->connection()).statusCounts(m_runId));
    } catch (const db::Error&) {
        return p; // the database went away; the failure is reported elsewhere
    }
    p.setPace(static_cast<double>(m_clock.elapsed()) / 1000.0, m_finishedThisSession);
    p.paused = m_paused;
    p.backend = m_backend;
    p.evalSlots = m_gpus.size();
    p.evalSlotsBusy = m_gpus.busy();
    p.evalPoolBusy = m_evalMeter.busyFraction(m_gpus.busy(), m_gpus.size());
    return p;
}

void RunEngine::emitProgress() {
    if (m_runId != 0)
        Q_EMIT progress(progressSnapshot());
}

bool RunEngine::retryLater(const std::shared_ptr<Job>& job, bool buildPhase,
                           const QString& reason) {
    const auto retry = recordRetry(m_db->connection(), m_settings, job->attempt.id, reason);
    if (!retry)
        return false;
    Q_EMIT logLine(QStringLiteral("attempt %1 (%2 / %3): %4; trying again in %5 s (retry %6 of %7)")
                       .arg(job->attempt.id)
                       .arg(toQ(job->attempt.modelName), toQ(job->attempt.taskKey), reason)
                       .arg(retry->delaySeconds, 0, 'f', 1)
                       .arg(retry->number)
                       .arg(retry->limit));
    const db::Id runId = m_runId;
    QTimer::singleShot(static_cast<int>(retry->delaySeconds * 1000), this,
                       [this, job, buildPhase, runId] {
                           if (m_runId != runId || !m_inFlight.contains(job))
                               return; // cancelled or stopped meanwhile
                           (buildPhase ? m_toBuild : m_built).prepend(job);
                           pump();
                       });
    return true;
}

void RunEngine::endExecution(const Job* job, bool kill) {
    const auto it = m_running.find(job);
    if (it == m_running.end())
        return;
    const Execution e = it.value();
    m_running.erase(it);
    if (e.build) {
        --m_building;
    } else {
        m_evalMeter.note(m_gpus.busy());
        m_gpus.release(e.gpu);
        --m_evaluating;
    }
    if (kill && e.executor) {
        e.executor->kill();
        e.executor->deleteLater();
    }
}

void RunEngine::dropJob(const std::shared_ptr<Job>& job) {
    endExecution(job.get(), true);
    m_inFlight.removeAll(job);
    m_toBuild.removeAll(job);
    m_built.removeAll(job);
}

void RunEngine::killAll() {
    const auto running = m_running.keys();
    for (const Job* job : running)
        endExecution(job, true);
    m_pending.clear();
    m_toBuild.clear();
    m_built.clear();
    m_inFlight.clear();
    m_building = m_evaluating = 0;
    m_generator->releaseAll();
}

} // namespace kb::engine
