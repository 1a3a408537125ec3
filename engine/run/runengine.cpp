#include "runengine.h"

#include "core/error.h"
#include "core/hashing.h"
#include "core/paths.h"
#include "db/catalogrepository.h"
#include "db/evaluationrepository.h"
#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "eval/harnessprocess.h"
#include "eval/resultparser.h"
#include "generation/feedback.h"
#include "generation/generationsettings.h"
#include "generation/modelreference.h"
#include "generation/providerclients.h"
#include "generation/sessionfactory.h"
#include "imports/candidateimport.h"
#include "imports/importedsession.h"
#include "providers/demoprovider.h"
#include "providers/prompt.h"
#include "providers/redaction.h"
#include "providers/requestoptions.h"
#include "run/evaluationrequest.h"
#include "run/faults.h"
#include "run/infrafaults.h"
#include "run/phaseclassification.h"
#include "scheduler/enginepresence.h"
#include "scheduler/executor.h"
#include "scheduler/harnessretry.h"
#include "scheduler/slurmexecutor.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTimer>

namespace kb::engine {

struct RunEngine::Job {
    db::AttemptRow attempt;
    db::TaskRow task;
    QString code;
    QString dir;
    QPointer<HarnessProcess> process;
    QString resultPath;
    // Generation: the conversation, the slot it holds while the first candidate is written,
    // and the best evaluation so far (multi-turn keeps the best correct candidate).
    SessionHandle session;
    std::shared_ptr<void> generationSlot;
    std::optional<db::EvaluationRecord> best;
    int evaluatedTurns = 0;
    QList<QByteArray> secrets; // the provider's keys: redacted from the candidate's code too
};

struct RunEngine::GenerationBackend {
    Provider* provider = nullptr;
    ChatClient* client = nullptr;
    QList<QByteArray> secrets;
    QString error;
};

namespace {
QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}
} // namespace

RunEngine::RunEngine(const QString& dbPath, QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<kb::engine::RunProgress>();
    qRegisterMetaType<kb::engine::AttemptResult>();
    const QFileInfo info(dbPath);
    if (info.exists() && info.isDir())
        throw Error(QStringLiteral("'%1' is a folder, not a database file").arg(dbPath));
    if (!info.absoluteDir().exists())
        throw Error(QStringLiteral("cannot open database '%1': folder '%2' does not exist")
                        .arg(dbPath, info.absolutePath()));
    try {
        m_db = std::make_unique<db::Database>(dbPath.toStdString());
    } catch (const db::Error& e) {
        throw Error(QString::fromUtf8(e.what()));
    }
    m_workRoot =
        info.absolutePath() + QLatin1Char('/') + info.completeBaseName() + QStringLiteral(".work");
}

RunEngine::~RunEngine() {
    shutdownScheduling();
    for (const auto& job : std::as_const(m_inFlight)) {
        if (job->process)
            job->process->kill();
    }
}

void RunEngine::ensureDemoCatalog() {
    auto& conn = m_db->connection();
    DemoProvider demo(demoDir());
    db::Transaction tx(conn);
    db::CatalogRepository catalog(conn);
    const db::Id providerId = catalog.upsertProvider(
        {0, "demo", "demo", "",
         R"({"note":"offline stored candidates, not a model","folder":"resources/demo"})"});
    for (const auto& m : demo.models()) {
        db::ModelRow row;
        row.providerId = providerId;
        row.name = m.id.toStdString();
        row.label = m.label.toStdString();
        row.priceInPerMTok = 0.0;
        row.priceOutPerMTok = 0.0;
        catalog.upsertModel(row);
    }
    importSuite(conn, SuiteLoader::loadFolder(sampleSuiteDir()));
    tx.commit();
}

db::Id RunEngine::createRun(const RunSpec& spec) {
    auto& conn = m_db->connection();
    db::CatalogRepository catalog(conn);
    const auto suite = catalog.suiteByName(spec.suite.toStdString());
    if (!suite)
        throw Error(QStringLiteral("no suite named '%1' in the database").arg(spec.suite));
    std::vector<db::Id> modelIds;
    for (const auto& name : spec.models) {
        const db::ModelRow model = resolveModelReference(catalog, name); // throws Error
        if (spec.generation.temperature) {
            const QString bad =
                checkTemperature(toQ(model.providerKind), *spec.generation.temperature);
            if (!bad.isEmpty() && isChatProviderKind(toQ(model.providerKind)))
                throw Error(QStringLiteral("model %1: %2").arg(name, bad));
        }
        modelIds.push_back(model.id);
    }
    if (modelIds.empty())
        throw Error(QStringLiteral("a run needs at least one model"));
    std::vector<db::Id> taskIds;
    for (const auto& t : catalog.tasks(suite->id)) {
        if (!spec.tasks.isEmpty() && !spec.tasks.contains(toQ(t.key)))
            continue;
        if (!spec.levels.isEmpty() && !spec.levels.contains(t.level))
            continue;
        taskIds.push_back(t.id);
    }
    if (taskIds.empty())
        throw Error(
            QStringLiteral("the task selection matches no task of suite '%1'").arg(spec.suite));
    if (spec.samples < 1)
        throw Error(QStringLiteral("samples per task must be at least 1"));

    EvalSettings settings = spec.settings;
    while (settings.seed == 0)
        settings.seed = QRandomGenerator::system()->generate64();
    QJsonObject json = settings.toJson();
    json.insert(QStringLiteral("samples"), spec.samples);
    json.insert(QStringLiteral("generation"),
                resolveGenerationSettings(spec.mode, spec.generation, spec.suite).toJson());
    db::RunRow run;
    run.name = (spec.name.isEmpty()
                    ? spec.suite + QStringLiteral(" / ") + spec.models.join(QStringLiteral(", "))
                    : spec.name)
                   .toStdString();
    run.suiteId = suite->id;
    run.mode = spec.mode.toStdString();
    run.settingsJson = QJsonDocument(json).toJson(QJsonDocument::Compact).toStdString();
    return db::RunRepository(conn).createRun(run, modelIds, taskIds, spec.samples);
}

void RunEngine::setKeyStore(std::shared_ptr<KeyStore> keys) {
    m_keys = std::move(keys);
    m_chatClients.clear();
}

RunEngine::GenerationBackend RunEngine::providerFor(const db::ModelRow& model) {
    GenerationBackend out;
    const QString kind = toQ(model.providerKind);
    if (kind == QLatin1String("demo")) {
        auto it = m_providers.find(kind);
        if (it == m_providers.end())
            it = m_providers.insert(kind, std::make_shared<DemoProvider>(demoDir()));
        out.provider = it->get();
        return out;
    }
    if (!isChatProviderKind(kind)) {
        out.error = QStringLiteral("no provider of kind '%1' is available").arg(kind);
        return out;
    }
    const QString name = toQ(model.providerName);
    auto it = m_chatClients.find(name);
    if (it == m_chatClients.end()) {
        db::CatalogRepository catalog(m_db->connection());
        std::optional<db::ProviderRow> row;
        for (const auto& p : catalog.providers())
            if (p.name == model.providerName)
                row = p;
        if (!row) {
            out.error = QStringLiteral("no provider named '%1'").arg(name);
            return out;
        }
        if (!m_keys)
            m_keys = defaultKeyStore();
        auto client = std::make_shared<ProviderClient>(
            makeProviderClient(*row, catalog.models(), m_keys.get(), this, &out.error));
        if (!client->client)
            return out; // not cached: a fixed key store or transcript works on the next attempt
        for (const QByteArray& key : knownSecrets(catalog.providers(), m_keys.get()))
            if (!client->secrets.contains(key))
                client->secrets.append(key);
        it = m_chatClients.insert(name, client);
    }
    out.client = it->get()->client;
    out.secrets = it->get()->secrets;
    return out;
}

const GenerationSettings& RunEngine::generationSettings() {
    if (!m_generation || m_generationRun != m_runId) {
        GenerationSettings g;
        if (const auto run = db::RunRepository(m_db->connection()).run(m_runId)) {
            const QJsonObject o =
                QJsonDocument::fromJson(QByteArray::fromStdString(run->settingsJson)).object();
            g = GenerationSettings::fromJson(o.value(QStringLiteral("generation")).toObject());
            if (run->mode != kModeMultiTurn.toStdString())
                g.turns = 1;
        }
        m_generation = std::make_shared<GenerationSettings>(g);
        m_generationRun = m_runId;
    }
    return *m_generation;
}

void RunEngine::releaseGenerationSlot(Job& job) {
    job.generationSlot.reset();
}

void RunEngine::start(db::Id runId) {
    if (m_runId != 0)
        throw Error(QStringLiteral("run %1 is already running").arg(m_runId));
    auto& conn = m_db->connection();
    db::RunRepository runs(conn);
    db::QueueRepository queue(conn);
    db::LeaseRepository leases(conn);
    try {
        const auto run = runs.run(runId);
        if (!run)
            throw Error(QStringLiteral("no run with id %1").arg(runId));
        ensureRegistered();
        reapDeadEngines(leases);
        const double now = db::LeaseRepository::now();
        if (const auto holder =
                leases.claimRun(runId, m_owner.toStdString(), now, m_leaseSeconds)) {
            throw Error(
                QStringLiteral(
                    "run %1 is being worked on by another engine (%2, %3 pid %4, last heartbeat "
                    "%5 s ago); pause or cancel it there, or wait until its lease expires")
                    .arg(runId)
                    .arg(QString::fromStdString(holder->kind), QString::fromStdString(holder->host))
                    .arg(holder->pid)
                    .arg(now - holder->heartbeatAt, 0, 'f', 0));
        }
        m_settings = EvalSettings::fromJson(
            QJsonDocument::fromJson(QByteArray::fromStdString(run->settingsJson)).object());
        if (m_settings.backend != QLatin1String("local"))
            queue.setRunBackend(runId, m_settings.backend.toStdString());
        m_backend = QString::fromStdString(queue.runBackend(runId));
        if (m_backend != QLatin1String("local") && m_backend != QLatin1String("slurm")) {
            leases.releaseRun(m_owner.toStdString());
            throw Error(QStringLiteral("run %1 asks for the unknown backend '%2' (local or slurm)")
                            .arg(runId)
                            .arg(m_backend));
        }
        m_runId = runId;
        m_cancelling = false;
        m_paused = false;
        m_pausedSignalled = false;
        m_building = m_evaluating = m_generating = 0;
        m_finishedThisSession = 0;
        m_evalBusyNs = 0;
        m_evalClock.invalidate();
        m_clock.start();
        const int requeued = leases.requeueExpired(runId, m_owner.toStdString(), now);
        if (requeued > 0)
            Q_EMIT logLine(QStringLiteral("resuming run %1: %2 interrupted attempt(s) queued again")
                               .arg(runId)
                               .arg(requeued));
        const int operational = requeueOperationalFailures(conn, runId);
        if (operational > 0)
            Q_EMIT logLine(
                QStringLiteral(
                    "resuming run %1: %2 attempt(s) that met a provider or infrastructure error "
                    "queued again")
                    .arg(runId)
                    .arg(operational));
        m_providerFaults.reset();
        runs.setRunStatus(runId, QStringLiteral("running").toStdString());
        m_pending.clear();
        for (db::Id id : queue.queuedAttempts(runId))
            m_pending.enqueue(id);
    } catch (const db::Error& e) {
        m_runId = 0;
        throw Error(
            QStringLiteral("cannot start run %1: %2").arg(runId).arg(QString::fromUtf8(e.what())));
    }
    if (m_backend == QLatin1String("slurm")) {
        QList<int> slots;
        for (int i = 0; i < std::max(1, m_settings.slurmMaxJobs); ++i)
            slots << i;
        m_gpus = GpuPool::withIndices(slots);
    } else {
        m_gpus = GpuPool(m_settings.device);
    }
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
               m_generating < std::max(1, m_settings.generationJobs) &&
               m_generating + m_toBuild.size() < 2 * buildSlots &&
               !(exclusiveTiming && m_evaluating > 0)) {
            const db::Id id = m_pending.dequeue();
            // Cancelled meanwhile, or taken by another engine: not ours to do.
            if (!leases.acquireAttempt(id, m_owner.toStdString(), db::LeaseRepository::now(),
                                       m_leaseSeconds))
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

    // Imported attempts ask no model: their stored code is the candidate (imports/).
    const bool imported = model->providerKind == kImportedProviderKind;
    const GenerationBackend backend = imported ? GenerationBackend{} : providerFor(*model);
    if (!imported && !backend.provider && !backend.client) {
        finishWithoutResult(job, QStringLiteral("no_candidate"), backend.error);
        return;
    }
    GenerationContext ctx;
    ctx.attemptId = attemptId;
    ctx.model = toQ(model->name);
    ctx.taskKey = toQ(task->key);
    ctx.taskName = toQ(task->name);
    ctx.level = task->level;
    ctx.taskSource = toQ(task->source);
    ctx.sampleIndex = attempt->sampleIndex;
    ctx.mode = toQ(attempt->mode);
    ctx.settings = generationSettings();
    ctx.eval = m_settings;
    ctx.eval.seed = 0; // generation never sees the run's secret seed
    ctx.workDir = job->dir;
    ctx.buildCacheDir = buildCacheDirFor(model->id);
    ctx.buildCacheRoot = buildCacheDir();
    ctx.secrets = backend.secrets;
    job->secrets = backend.secrets;
    ctx.firstTurnIndex = runs.nextTurnIndex(attemptId);
    const QPointer<RunEngine> self(this);
    ctx.storeTurn = [self](const db::TurnRow& row) {
        if (!self)
            return;
        try {
            db::RunRepository turns(self->m_db->connection());
            turns.addTurn(row);
            turns.updateAttemptCost(row.attemptId);
        } catch (const db::Error& e) {
            // An attempt must not finish without its turns (its tokens would go uncounted): the
            // run stops, once the session that called this has returned.
            const db::Error error(e.what());
            const db::Id attempt = row.attemptId;
            QTimer::singleShot(0, self, [self, error, attempt] {
                if (self && self->m_runId != 0)
                    self->failOnDatabase(
                        QStringLiteral("cannot store a turn of attempt %1").arg(attempt), error);
            });
        }
    };
    ctx.log = [self](const QString& line) {
        if (self)
            Q_EMIT self->logLine(line);
    };

    // Writing the first candidate holds a generation slot, given back when the candidate is
    // there, or when the job ends (cancelled) while it is being written.
    ++m_generating;
    const std::weak_ptr<bool> alive = m_alive;
    const db::Id runId = m_runId;
    job->generationSlot = std::shared_ptr<void>(nullptr, [this, alive, runId](void*) {
        if (!alive.expired() && m_runId == runId && m_generating > 0)
            --m_generating;
    });
    auto* session =
        imported ? new ImportedSession(ctx, db::ImportRepository(conn).importedCandidate(attemptId),
                                       this)
                 : makeGenerationSession(ctx, backend.provider, backend.client, this);
    job->session.reset(session);
    const std::weak_ptr<Job> weak = job;
    connect(session, &GenerationSession::candidateReady, this, [this, weak](const QString& code) {
        if (auto j = weak.lock(); j && m_inFlight.contains(j))
            onCandidate(j, code);
    });
    connect(session, &GenerationSession::noCandidate, this,
            [this, weak](const QString& message, bool) {
                if (auto j = weak.lock(); j && m_inFlight.contains(j)) {
                    m_providerFaults.noteAnswer(toQ(j->attempt.modelName));
                    onNoCandidate(j, message);
                }
            });
    connect(session, &GenerationSession::providerFailed, this,
            [this, weak](const QString& message, int status) {
                if (auto j = weak.lock(); j && m_inFlight.contains(j))
                    onProviderFailed(j, message, status);
            });
    session->start();
}

void RunEngine::onCandidate(const std::shared_ptr<Job>& job, const QString& code) {
    releaseGenerationSlot(*job);
    m_providerFaults.noteAnswer(toQ(job->attempt.modelName));
    // A key the model quotes (or an agent digs up) is neither evaluated nor stored.
    job->code = redactSecrets(code, job->secrets);
    if (!writeFile(job->dir + QStringLiteral("/task.py"), job->task.source.c_str()) ||
        !writeFile(job->dir + QStringLiteral("/candidate.py"), job->code.toUtf8())) {
        try {
            finishWithoutResult(job, kVerdictInfraError,
                                QStringLiteral("cannot write the attempt's files under %1%2")
                                    .arg(job->dir, freeBytesAt(job->dir) >= 0 &&
                                                           freeBytesAt(job->dir) < kDiskFullBytes
                                                       ? QStringLiteral(" (the disk is full)")
                                                       : QString()));
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
    const QString sharedCache = qEnvironmentVariable("KBSTUDIO_BUILD_CACHE");
    return sharedCache.isEmpty() ? QString(m_workRoot + QStringLiteral("/build-cache"))
                                 : sharedCache;
}

QString RunEngine::buildCacheDirFor(db::Id modelId) const {
    // One folder per model: a candidate's sandbox may write only its own model's builds (and
    // sees no other model's), so no model can replace or empty a build another one loads.
    return buildCacheDir() + QStringLiteral("/model-") + QString::number(modelId);
}

void RunEngine::onProviderFailed(const std::shared_ptr<Job>& job, const QString& message,
                                 int httpStatus) {
    releaseGenerationSlot(*job);
    const QString model = toQ(job->attempt.modelName);
    try {
        if (job->best) {
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
    m_cancelling = true;
    killAll();
    try {
        db::LeaseRepository leases(m_db->connection());
        leases.requeueOwned(runId, m_owner.toStdString());
        db::RunRepository(m_db->connection()).setRunStatus(runId, "failed", message.toStdString());
        leases.releaseRun(m_owner.toStdString());
    } catch (const db::Error& e) {
        Q_EMIT logLine(QStringLiteral("cannot record the end of run %1: %2")
                           .arg(runId)
                           .arg(QString::fromUtf8(e.what())));
    }
    m_runId = 0;
    m_paused = false;
    m_cancelling = false;
    Q_EMIT runFinished(runId, QStringLiteral("failed"), message);
}

void RunEngine::onNoCandidate(const std::shared_ptr<Job>& job, const QString& message) {
    releaseGenerationSlot(*job);
    try {
        if (job->best) {
            // A later turn gave nothing (a refusal, an error): the attempt keeps its best result,
            // already stored with the evaluation that produced it.
            const auto& b = *job->best;
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

bool RunEngine::continueGeneration(const std::shared_ptr<Job>& job, db::EvaluationRecord& record) {
    if (job->session)
        record.candidate.turnIndex = job->session->candidateTurnIndex();
    ++job->evaluatedTurns;
    // The instrument failing is not the candidate's doing: no feedback on it, no best from it.
    // An earlier turn's result stands; without one the attempt fails (and may be retried).
    if (record.attemptStatus == "failed") {
        if (job->best) {
            const db::EvaluationRecord& best = *job->best;
            record.attemptStatus = "done";
            record.attemptVerdict = best.attemptVerdict;
            record.attemptMessage =
                best.attemptMessage + " (refinement stopped: " + record.evaluation.message + ")";
            record.suspicious = best.suspicious;
            record.speedupEager = best.speedupEager;
            record.speedupCompile = best.speedupCompile;
        }
        return false;
    }
    if (!job->best || betterThan(record, *job->best))
        job->best = record;
    const db::EvaluationRecord& best = *job->best;
    record.attemptVerdict = best.attemptVerdict;
    record.attemptMessage = best.attemptMessage;
    record.suspicious = best.suspicious;
    record.speedupEager = best.speedupEager;
    record.speedupCompile = best.speedupCompile;
    const GenerationSettings& g = generationSettings();
    const bool more = job->session && job->session->canContinue() &&
                      job->evaluatedTurns < g.turns && !goodEnough(record, g.targetSpeedup);
    if (!more)
        return false;
    const QString feedback = feedbackText(record, g.turns - job->evaluatedTurns);
    record.attemptStatus = "generating";
    record.attemptId = job->attempt.id;
    record.candidate.attemptId = job->attempt.id;
    record.candidate.code = job->code.toStdString();
    record.candidate.codeHash = sha256Hex(job->code).toStdString();
    record.evaluation.attemptId = job->attempt.id;
    // The bookkeeping of the record itself (the evaluation of this turn) is untouched above:
    // only the attempt's summary follows the best turn.
    db::EvaluationRepository(m_db->connection()).store(record);
    Q_EMIT logLine(QStringLiteral("attempt %1 (%2 / %3): turn %4 %5; asking for another candidate")
                       .arg(job->attempt.id)
                       .arg(toQ(job->attempt.modelName), toQ(job->attempt.taskKey))
                       .arg(job->evaluatedTurns)
                       .arg(toQ(record.evaluation.verdict)));
    job->session->continueWith(feedback);
    return true;
}

QByteArray RunEngine::requestJson(const Job& job, int gpuIndex) const {
    EvaluationRequest r;
    r.taskPath = job.dir + QStringLiteral("/task.py");
    r.candidatePath = job.dir + QStringLiteral("/candidate.py");
    r.buildDir = buildCacheDirFor(job.attempt.modelId);
    r.buildRoot = buildCacheDir();
    r.gpuIndex = gpuIndex;
    r.seed = attemptSeed(m_settings.seed, job.attempt.id);
    return evaluationRequestJson(m_settings, r);
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
    QDir().mkpath(m_workRoot + QStringLiteral("/results"));
    job->resultPath =
        QStringLiteral("%1/results/%2.json")
            .arg(m_workRoot, QString::number(QRandomGenerator::system()->generate64(), 16));
    QFile::remove(job->resultPath);
    const bool remote = !buildPhase && m_backend == QLatin1String("slurm");
    Execution exec;
    exec.build = buildPhase;
    if (!buildPhase) {
        if (!m_evalClock.isValid()) {
            m_evalClock.start();
            m_evalMarkNs = 0;
        }
        noteEvalBusyChange();
        exec.gpu = m_gpus.acquire();
    }
    Executor* executor = nullptr;
    if (remote) {
        SlurmSettings ss;
        ss.partition = m_settings.slurmPartition;
        ss.gpu = m_settings.device == QLatin1String("cuda");
        ss.exclusive = m_settings.device == QLatin1String("cpu");
        ss.extraArgs = m_settings.slurmArgs;
        ss.spoolDir = m_workRoot + QStringLiteral("/slurm");
        bool ok = false;
        const int poll = qEnvironmentVariableIntValue("KBSTUDIO_SLURM_POLL_MS", &ok);
        if (ok && poll > 0)
            ss.pollMs = poll;
        executor = new SlurmExecutor(ss, this);
    } else {
        executor = new LocalExecutor(this);
    }
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
    ExecRequest r;
    r.phase = buildPhase ? QStringLiteral("build") : QStringLiteral("evaluate");
    r.workDir = job->dir;
    r.resultPath = job->resultPath;
    // Under Slurm each job sees only the GPU it was given, as device 0.
    r.request = requestJson(*job, remote ? 0 : exec.gpu);
    r.timeoutMs = static_cast<int>(
        (buildPhase ? m_settings.buildTimeoutSeconds : m_settings.timeoutSeconds) * 1000);
    r.gpuIndex = exec.gpu;
    r.label = QStringLiteral("attempt-%1").arg(job->attempt.id);
    executor->start(r);
    emitProgress();
}

void RunEngine::onPhaseFinished(const std::shared_ptr<Job>& job, bool buildPhase,
                                const ExecOutcome& exec) {
    if (m_cancelling || m_runId == 0)
        return;
    PhaseOutput out;
    out.buildPhase = buildPhase;
    out.harness = exec.harness;
    out.lost = exec.lost;
    QFile f(job->resultPath);
    out.haveFile = f.open(QIODevice::ReadOnly);
    out.bytes = out.haveFile ? f.readAll() : QByteArray();
    f.close();
    QFile::remove(job->resultPath);
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
    if (continueGeneration(job, record))
        return;
    record.attemptId = job->attempt.id;
    record.candidate.attemptId = job->attempt.id;
    record.candidate.code = job->code.toStdString();
    record.candidate.codeHash = sha256Hex(job->code).toStdString();
    record.evaluation.attemptId = job->attempt.id;
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
        db::EvaluationRecord record;
        record.evaluation.verdict = verdict.toStdString();
        record.evaluation.message = message.toStdString();
        record.evaluation.settingsJson =
            QJsonDocument(m_settings.toJson()).toJson(QJsonDocument::Compact).toStdString();
        record.attemptVerdict = verdict.toStdString();
        record.attemptMessage = message.toStdString();
        record.attemptStatus = ours ? "failed" : "done";
        finishWithRecord(job, std::move(record));
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
    std::map<std::string, int> counts;
    try {
        counts = db::RunRepository(m_db->connection()).statusCounts(m_runId);
    } catch (const db::Error&) {
        return p; // the database went away; the failure is reported elsewhere
    }
    auto get = [&](const char* k) {
        auto it = counts.find(k);
        return it == counts.end() ? 0 : it->second;
    };
    p.queued = get("queued");
    p.generating = get("generating");
    p.building = get("building");
    p.evaluating = get("evaluating");
    p.done = get("done");
    p.failed = get("failed");
    p.cancelled = get("cancelled");
    for (const auto& [k, v] : counts)
        p.total += v;
    p.elapsedSeconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
    const int remaining = p.total - p.finished();
    if (m_finishedThisSession > 0)
        p.etaSeconds = p.elapsedSeconds / m_finishedThisSession * remaining;
    if (p.elapsedSeconds > 0)
        p.attemptsPerMinute = m_finishedThisSession * 60.0 / p.elapsedSeconds;
    p.paused = m_paused;
    p.backend = m_backend;
    p.evalSlots = m_gpus.size();
    p.evalSlotsBusy = m_gpus.busy();
    if (m_evalClock.isValid()) {
        const qint64 now = m_evalClock.nsecsElapsed();
        const qint64 busy = m_evalBusyNs + (now - m_evalMarkNs) * m_gpus.busy();
        if (now > 0 && m_gpus.size() > 0)
            p.evalPoolBusy = static_cast<double>(busy) / (static_cast<double>(now) * m_gpus.size());
    }
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
        db::QueueRepository(m_db->connection())
            .cancelAttempts(m_runId, {}, {}, "cancelled by the user");
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
        db::LeaseRepository(m_db->connection()).releaseRun(m_owner.toStdString());
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
        m_heartbeat.stop();
        markEngineGone(m_owner);
        m_registered = false;
    }
    m_runId = 0;
    m_paused = false;
    Q_EMIT runFinished(runId, reported, message);
}

// --- Scheduling: engine registration, heartbeat, control flags, retries -----------------------

void RunEngine::ensureRegistered() {
    if (m_registered)
        return;
    m_owner = newEngineOwnerId();
    db::EngineRow e;
    e.owner = m_owner.toStdString();
    e.host = engineHostName().toStdString();
    e.pid = QCoreApplication::applicationPid();
    e.kind = m_kind.toStdString();
    e.startedAt = e.heartbeatAt = db::LeaseRepository::now();
    db::LeaseRepository(m_db->connection()).registerEngine(e);
    markEngineAlive(m_owner);
    m_registered = true;
    connect(&m_heartbeat, &QTimer::timeout, this, &RunEngine::heartbeat, Qt::UniqueConnection);
    m_heartbeat.start(m_heartbeatMs);
}

void RunEngine::setLeaseTiming(int heartbeatMs, double leaseSeconds) {
    m_heartbeatMs = std::max(10, heartbeatMs);
    m_leaseSeconds = leaseSeconds;
    if (m_heartbeat.isActive())
        m_heartbeat.start(m_heartbeatMs);
}

void RunEngine::heartbeat() {
    if (!m_registered)
        return;
    try {
        db::LeaseRepository(m_db->connection())
            .heartbeat(m_owner.toStdString(), db::LeaseRepository::now(), m_leaseSeconds);
        if (m_runId != 0)
            pollControl();
    } catch (const db::Error& e) {
        if (m_runId != 0)
            failOnDatabase(QStringLiteral("cannot renew the engine's lease"), e);
        else
            Q_EMIT logLine(QStringLiteral("cannot renew the engine's heartbeat: %1")
                               .arg(QString::fromUtf8(e.what())));
    }
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
        queue.cancelAttempts(m_runId, {}, {}, "cancelled by the user");
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
    const auto statuses = queue.attemptStatuses(ids);
    const auto inFlight = m_inFlight;
    for (const auto& job : inFlight) {
        const auto it = statuses.find(job->attempt.id);
        if (it != statuses.end() && it->second == "cancelled") {
            dropJob(job);
            changed = true;
        }
    }
    if (changed) {
        emitProgress();
        QTimer::singleShot(0, this, &RunEngine::pump);
    }
}

void RunEngine::pause() {
    if (m_runId == 0)
        return;
    try {
        db::RunRepository(m_db->connection()).setRunStatus(m_runId, "paused");
        pollControl();
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot pause run %1").arg(m_runId), e);
    }
}

void RunEngine::resume() {
    if (m_runId == 0)
        return;
    try {
        db::RunRepository(m_db->connection()).setRunStatus(m_runId, "running");
        pollControl();
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot resume run %1").arg(m_runId), e);
    }
}

int RunEngine::cancelModel(const QString& model) {
    if (m_runId == 0)
        return 0;
    try {
        const int n =
            db::QueueRepository(m_db->connection())
                .cancelAttempts(m_runId, model.toStdString(), {},
                                "cancelled by the user (model " + model.toStdString() + ")");
        pollControl();
        return n;
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot cancel model %1").arg(model), e);
        return 0;
    }
}

int RunEngine::cancelTask(const QString& taskKey) {
    if (m_runId == 0)
        return 0;
    try {
        const int n =
            db::QueueRepository(m_db->connection())
                .cancelAttempts(m_runId, {}, taskKey.toStdString(),
                                "cancelled by the user (task " + taskKey.toStdString() + ")");
        pollControl();
        return n;
    } catch (const db::Error& e) {
        failOnDatabase(QStringLiteral("cannot cancel task %1").arg(taskKey), e);
        return 0;
    }
}

bool RunEngine::retryLater(const std::shared_ptr<Job>& job, bool buildPhase,
                           const QString& reason) {
    HarnessRetryPolicy policy;
    policy.limit = m_settings.retryLimit;
    policy.baseSeconds = m_settings.retryBaseSeconds;
    db::QueueRepository queue(m_db->connection());
    const int tries = queue.tries(job->attempt.id);
    if (tries >= policy.limit)
        return false;
    const double delay = policy.delaySeconds(tries + 1);
    queue.recordRetry(job->attempt.id, db::LeaseRepository::now() + delay, reason.toStdString());
    Q_EMIT logLine(QStringLiteral("attempt %1 (%2 / %3): %4; trying again in %5 s (retry %6 of %7)")
                       .arg(job->attempt.id)
                       .arg(toQ(job->attempt.modelName), toQ(job->attempt.taskKey), reason)
                       .arg(delay, 0, 'f', 1)
                       .arg(tries + 1)
                       .arg(policy.limit));
    const db::Id runId = m_runId;
    QTimer::singleShot(static_cast<int>(delay * 1000), this, [this, job, buildPhase, runId] {
        if (m_runId != runId || !m_inFlight.contains(job))
            return; // cancelled or stopped meanwhile
        try {
            if (buildPhase)
                m_toBuild.prepend(job);
            else
                m_built.prepend(job);
        } catch (const db::Error& e) {
            failOnDatabase(QStringLiteral("cannot retry attempt %1").arg(job->attempt.id), e);
            return;
        }
        pump();
    });
    return true;
}

void RunEngine::noteEvalBusyChange() {
    if (!m_evalClock.isValid())
        return;
    const qint64 now = m_evalClock.nsecsElapsed();
    m_evalBusyNs += (now - m_evalMarkNs) * m_gpus.busy();
    m_evalMarkNs = now;
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
        noteEvalBusyChange();
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
    m_building = m_evaluating = m_generating = 0;
}

void RunEngine::stop() {
    if (m_runId == 0)
        return;
    const db::Id runId = m_runId;
    m_cancelling = true;
    killAll();
    try {
        db::LeaseRepository leases(m_db->connection());
        const int requeued = leases.requeueOwned(runId, m_owner.toStdString());
        leases.releaseRun(m_owner.toStdString());
        if (requeued > 0)
            Q_EMIT logLine(QStringLiteral("run %1: %2 attempt(s) in flight queued again")
                               .arg(runId)
                               .arg(requeued));
    } catch (const db::Error& e) {
        Q_EMIT logLine(QStringLiteral("cannot release run %1: %2")
                           .arg(runId)
                           .arg(QString::fromUtf8(e.what())));
    }
    m_runId = 0;
    m_paused = false;
    m_cancelling = false;
}

void RunEngine::shutdownScheduling() {
    stop();
    if (!m_registered)
        return;
    m_heartbeat.stop();
    try {
        db::LeaseRepository(m_db->connection())
            .stopEngine(m_owner.toStdString(), db::LeaseRepository::now());
    } catch (const db::Error&) {
        // The engine is known dead anyway once this process is gone.
    }
    markEngineGone(m_owner);
    m_registered = false;
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
    m_heartbeat.stop();
    try {
        db::LeaseRepository(m_db->connection())
            .stopEngine(m_owner.toStdString(), db::LeaseRepository::now());
    } catch (const db::Error&) {
    }
    markEngineGone(m_owner);
    m_registered = false;
    if (runId != 0)
        Q_EMIT runFinished(runId, QStringLiteral("failed"), message);
}

} // namespace kb::engine
