#include "runengine.h"

#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/evaluationrepository.h"
#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "providers/redaction.h"
#include "run/attemptgenerator.h"
#include "run/attemptjob.h"
#include "run/phaseclassification.h"
#include "run/phaseexecution.h"
#include "run/runclaim.h"
#include "run/runcontrol.h"
#include "run/runcreation.h"
#include "run/turntracker.h"
#include "scheduler/executor.h"

#include <QDir>
#include <QTimer>
#include <set>

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
        finishRun(QStringLiteral("finished"), {});
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
    runs.setAttemptStatus(attemptId, "generating");
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

void RunEngine::abortRun(const QString& message) {
    const db::Id runId = m_runId;
    if (runId == 0)
        return;
    Q_EMIT logLine(QStringLiteral("run %1 %2").arg(runId).arg(message));
    emitProgress();
    leaveRun(message);
    Q_EMIT runFinished(runId, QStringLiteral("failed"), message);
}

void RunEngine::leaveRun(const std::optional<QString>& failure) {
    const db::Id runId = m_runId;
    m_cancelling = true;
    killAll();
    try {
        const int requeued =
            giveBackRun(m_db->connection(), runId, ownerId().toStdString(),
                        failure ? std::optional(failure->toStdString()) : std::nullopt);
        if (!failure && requeued > 0)
            Q_EMIT logLine(QStringLiteral("run %1: %2 attempt(s) in flight queued again")
                               .arg(runId)
                               .arg(requeued));
    } catch (const db::Error& e) {
        Q_EMIT logLine((failure ? QStringLiteral("cannot record the end of run %1: %2")
                                : QStringLiteral("cannot release run %1: %2"))
                           .arg(runId)
                           .arg(QString::fromUtf8(e.what())));
    }
    m_runId = 0;
    m_paused = false;
    m_cancelling = false;
}

void RunEngine::onNoCandidate(const std::shared_ptr<Job>& job, const QString& message) {
    job->generationSlot.reset();
    try {
        if (job->turns.best()) {
            // A later turn gave nothing (a refusal, an error): the attempt keeps its best result,
            // already stored with the evaluation that produced it.
            const auto& b = *job->turns.best();
            db::RunRepository(m_db->connection())
                .finishAttempt(job->attempt.id, "done", b.attemptVerdict,
                               b.attemptMessage + " (refinement stopped: " + message.toStdString() +
                                   ")");
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

void RunEngine::startPhase(const std::shared_ptr<Job>& job, bool buildPhase) {
    if (!db::QueueRepository(m_db->connection())
             .advanceAttempt(job->attempt.id, buildPhase ? "building" : "evaluating")) {
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
        finishRun(QStringLiteral("failed"), QString::fromUtf8(e.what()));
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
        .finishAttempt(job->attempt.id, ours ? "failed" : "done", verdict.toStdString(),
                       message.toStdString());
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

void RunEngine::cancel() {
    if (m_runId == 0)
        return;
    m_cancelling = true;
    killAll();
    try {
        cancelRun(m_db->connection(), m_runId);
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot cancel run %1").arg(m_runId), e);
        return;
    }
    finishRun(QStringLiteral("cancelled"), QStringLiteral("cancelled by the user"));
}

void RunEngine::finishRun(const QString& status, QString message) {
    const db::Id runId = m_runId;
    if (runId == 0)
        return;
    emitProgress();
    killAll();
    QString reported = status;
    try {
        db::RunRepository(m_db->connection())
            .setRunStatus(runId, status.toStdString(), message.toStdString());
        db::LeaseRepository(m_db->connection()).releaseRun(ownerId().toStdString());
    } catch (const db::Error& e) {
        Q_EMIT logLine(QStringLiteral("cannot record the end of run %1: %2")
                           .arg(runId)
                           .arg(QString::fromUtf8(e.what())));
        message += QStringLiteral(
            ". The run stopped; what was stored is intact, and it resumes from there once the "
            "database can be written again");
        // a run the database would not call finished is not reported finished either
        if (reported == QLatin1String("finished"))
            reported = QStringLiteral("stopped");
        // The database takes no writes: step back so the run can be taken over at once.
        m_lease->stepBack();
    }
    m_runId = 0;
    m_paused = false;
    Q_EMIT runFinished(runId, reported, message);
}

// --- Scheduling: heartbeat, control flags, retries ---------------------------------------------

void RunEngine::onLeaseRenewed() {
    if (m_runId == 0)
        return;
    try {
        pollControl();
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot renew the engine's lease"), e);
    }
}

void RunEngine::onLeaseRenewFailed(const QString& error) {
    if (m_runId != 0)
        failOnDatabase(QStringLiteral("cannot renew the engine's lease"),
                       db::Error(error.toStdString()));
    else
        Q_EMIT logLine(QStringLiteral("cannot renew the engine's heartbeat: %1").arg(error));
}

void RunEngine::pollControl() {
    if (m_runId == 0)
        return;
    auto& conn = m_db->connection();
    db::QueueRepository queue(conn);
    const std::string status = queue.runStatus(m_runId);
    if (status == "cancelled") {
        m_cancelling = true;
        killAll();
        cancelRun(conn, m_runId);
        finishRun(QStringLiteral("cancelled"), QStringLiteral("cancelled by the user"));
        return;
    }
    bool changed = false;
    if (status == "paused" && !m_paused) {
        m_paused = true;
        m_pausedSignalled = false;
        Q_EMIT logLine(
            QStringLiteral("run %1 paused: the attempts in flight finish, nothing new starts")
                .arg(m_runId));
        changed = true;
    } else if (status != "paused" && m_paused) {
        m_paused = false;
        Q_EMIT logLine(QStringLiteral("run %1 resumed").arg(m_runId));
        changed = true;
    }
    // Attempts cancelled one by one (a model, a task): stop what is in flight for them.
    std::vector<db::Id> ids;
    for (const auto& job : std::as_const(m_inFlight))
        ids.push_back(job->attempt.id);
    const std::set<db::Id> cancelled = cancelledAmong(conn, ids);
    const auto inFlight = m_inFlight;
    for (const auto& job : inFlight) {
        if (cancelled.count(job->attempt.id) > 0) {
            dropJob(job);
            changed = true;
        }
    }
    if (changed) {
        emitProgress();
        QTimer::singleShot(0, this, &RunEngine::pump);
    }
}

bool RunEngine::applyControl(const QString& failure, const std::function<void()>& change) {
    if (m_runId == 0)
        return false;
    try {
        change();
        pollControl();
        return true;
    } catch (const db::Error& e) {
        failOnDatabase(failure, e);
        return false;
    }
}

void RunEngine::pause() {
    applyControl(QStringLiteral("cannot pause run %1").arg(m_runId),
                 [this] { pauseRun(m_db->connection(), m_runId); });
}

void RunEngine::resume() {
    applyControl(QStringLiteral("cannot resume run %1").arg(m_runId),
                 [this] { resumeRun(m_db->connection(), m_runId); });
}

int RunEngine::cancelModel(const QString& model) {
    int n = 0;
    const bool ok = applyControl(QStringLiteral("cannot cancel model %1").arg(model), [&] {
        n = cancelRunAttempts(m_db->connection(), m_runId, model.toStdString(), {});
    });
    return ok ? n : 0;
}

int RunEngine::cancelTask(const QString& taskKey) {
    int n = 0;
    const bool ok = applyControl(QStringLiteral("cannot cancel task %1").arg(taskKey), [&] {
        n = cancelRunAttempts(m_db->connection(), m_runId, {}, taskKey.toStdString());
    });
    return ok ? n : 0;
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

void RunEngine::stop() {
    if (m_runId != 0)
        leaveRun(std::nullopt);
}

void RunEngine::shutdownScheduling() {
    stop();
    m_lease->stepBack();
}

void RunEngine::failOnDatabase(const QString& what, const std::exception& e) {
    const QString message =
        QStringLiteral("%1: %2. The run stopped; what was stored is intact, and it resumes "
                       "from there once the database can be written again")
            .arg(what, QString::fromUtf8(e.what()));
    Q_EMIT logLine(message);
    const db::Id runId = m_runId;
    m_cancelling = true;
    killAll();
    m_runId = 0;
    m_paused = false;
    // Step back, so another engine (or this one later) can take the run over at once.
    m_lease->stepBack();
    if (runId != 0)
        Q_EMIT runFinished(runId, QStringLiteral("failed"), message);
}

} // namespace kb::engine
