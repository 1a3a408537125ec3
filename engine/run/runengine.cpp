#include "runengine.h"

#include "core/error.h"
#include "core/hashing.h"
#include "core/paths.h"
#include "eval/harnessprocess.h"
#include "eval/resultparser.h"
#include "providers/demoprovider.h"
#include "providers/prompt.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include "db/catalogrepository.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"

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
};

namespace {
QString toQ(const std::string& s)
{
    return QString::fromStdString(s);
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}
} // namespace

RunEngine::RunEngine(const QString& dbPath, QObject* parent)
    : QObject(parent)
{
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
    m_workRoot = info.absolutePath() + QLatin1Char('/') + info.completeBaseName() + QStringLiteral(".work");
}

RunEngine::~RunEngine()
{
    for (const auto& job : std::as_const(m_inFlight)) {
        if (job->process)
            job->process->kill();
    }
}

void RunEngine::ensureDemoCatalog()
{
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

db::Id RunEngine::createRun(const RunSpec& spec)
{
    auto& conn = m_db->connection();
    db::CatalogRepository catalog(conn);
    const auto suite = catalog.suiteByName(spec.suite.toStdString());
    if (!suite)
        throw Error(QStringLiteral("no suite named '%1' in the database").arg(spec.suite));
    std::vector<db::Id> modelIds;
    for (const auto& name : spec.models) {
        const auto model = catalog.modelByName(name.toStdString());
        if (!model)
            throw Error(QStringLiteral("no model named '%1' in the database").arg(name));
        modelIds.push_back(model->id);
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
        throw Error(QStringLiteral("the task selection matches no task of suite '%1'").arg(spec.suite));
    if (spec.samples < 1)
        throw Error(QStringLiteral("samples per task must be at least 1"));

    EvalSettings settings = spec.settings;
    while (settings.seed == 0)
        settings.seed = QRandomGenerator::system()->generate64();
    QJsonObject json = settings.toJson();
    json.insert(QStringLiteral("samples"), spec.samples);
    db::RunRow run;
    run.name = (spec.name.isEmpty() ? spec.suite + QStringLiteral(" / ") + spec.models.join(QStringLiteral(", "))
                                    : spec.name)
                   .toStdString();
    run.suiteId = suite->id;
    run.mode = spec.mode.toStdString();
    run.settingsJson = QJsonDocument(json).toJson(QJsonDocument::Compact).toStdString();
    return db::RunRepository(conn).createRun(run, modelIds, taskIds, spec.samples);
}

Provider* RunEngine::providerFor(const QString& kind)
{
    auto it = m_providers.find(kind);
    if (it != m_providers.end())
        return it->get();
    if (kind == QLatin1String("demo")) {
        auto p = std::make_shared<DemoProvider>(demoDir());
        m_providers.insert(kind, p);
        return p.get();
    }
    return nullptr;
}

void RunEngine::start(db::Id runId)
{
    if (m_runId != 0)
        throw Error(QStringLiteral("run %1 is already running").arg(m_runId));
    db::RunRepository runs(m_db->connection());
    const auto run = runs.run(runId);
    if (!run)
        throw Error(QStringLiteral("no run with id %1").arg(runId));
    m_settings = EvalSettings::fromJson(QJsonDocument::fromJson(QByteArray::fromStdString(run->settingsJson)).object());
    m_runId = runId;
    m_cancelling = false;
    m_building = m_evaluating = 0;
    m_finishedThisSession = 0;
    m_clock.start();
    const int requeued = runs.requeueInterrupted(runId);
    if (requeued > 0)
        Q_EMIT logLine(QStringLiteral("resuming run %1: %2 interrupted attempt(s) queued again").arg(runId).arg(requeued));
    runs.setRunStatus(runId, QStringLiteral("running").toStdString());
    m_pending.clear();
    for (db::Id id : runs.queuedAttemptIds(runId))
        m_pending.enqueue(id);
    QDir().mkpath(m_workRoot);
    emitProgress();
    QTimer::singleShot(0, this, &RunEngine::pump);
}

void RunEngine::pump()
{
    if (m_runId == 0)
        return;
    // On the CPU, builds and timing share the cores: never time while something compiles.
    const bool exclusiveTiming = m_settings.device == QLatin1String("cpu");
    while (!m_pending.isEmpty() && m_building < std::max(1, m_settings.buildJobs)
           && !(exclusiveTiming && m_evaluating > 0)) {
        prepare(m_pending.dequeue());
    }
    while (!m_built.isEmpty() && m_evaluating < 1 && !(exclusiveTiming && m_building > 0))
        startPhase(m_built.dequeue(), false);
    if (m_pending.isEmpty() && m_built.isEmpty() && m_inFlight.isEmpty())
        finishRun(QStringLiteral("finished"), {});
}

void RunEngine::prepare(db::Id attemptId)
{
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

    Provider* provider = providerFor(toQ(model->providerKind));
    GenerationRequest req;
    req.model = toQ(model->name);
    req.taskKey = toQ(task->key);
    req.taskName = toQ(task->name);
    req.level = task->level;
    req.taskSource = toQ(task->source);
    req.sampleIndex = attempt->sampleIndex;
    req.prompt = buildOneShotPrompt(req.taskSource, m_settings.device);
    req.device = m_settings.device;
    GenerationResult gen;
    if (provider) {
        gen = provider->generate(req);
    } else {
        gen.error = QStringLiteral("no provider of kind '%1' is available").arg(toQ(model->providerKind));
        gen.prompt = req.prompt;
    }
    db::TurnRow turn;
    turn.attemptId = attemptId;
    turn.prompt = gen.prompt.toStdString();
    turn.response = gen.response.toStdString();
    turn.inputTokens = gen.inputTokens;
    turn.outputTokens = gen.outputTokens;
    turn.latencyMs = gen.latencyMs;
    turn.stopReason = (gen.ok ? gen.stopReason : QStringLiteral("error")).toStdString();
    runs.addTurn(turn);
    m_inFlight.append(job);
    if (!gen.ok) {
        finishWithoutResult(job, QStringLiteral("no_candidate"), gen.error);
        return;
    }
    job->code = extractCandidateCode(gen.response);
    if (job->code.trimmed().isEmpty()) {
        finishWithoutResult(job, QStringLiteral("no_candidate"),
                            QStringLiteral("the response holds no code block"));
        return;
    }
    job->dir = QStringLiteral("%1/run-%2/attempt-%3").arg(m_workRoot).arg(m_runId).arg(attemptId);
    QDir(job->dir).removeRecursively();
    QDir().mkpath(job->dir);
    if (!writeFile(job->dir + QStringLiteral("/task.py"), task->source.c_str())
        || !writeFile(job->dir + QStringLiteral("/candidate.py"), job->code.toUtf8())) {
        finishWithoutResult(job, QStringLiteral("harness_error"),
                            QStringLiteral("cannot write the attempt's files under %1").arg(job->dir));
        return;
    }
    startPhase(job, true);
}

QByteArray RunEngine::requestJson(const Job& job) const
{
    // The per-attempt seed is derived from the run's secret seed; JSON numbers are doubles,
    // so it is kept below 2^53.
    const quint64 seed = (m_settings.seed ^ (static_cast<quint64>(job.attempt.id) * 0x9E3779B97F4A7C15ULL)) >> 12;
    QJsonObject baseline;
    baseline.insert(QStringLiteral("eager"), true);
    baseline.insert(QStringLiteral("compile"), m_settings.compileBaseline);
    baseline.insert(QStringLiteral("compile_mode"), m_settings.compileMode);
    QJsonObject policy;
    policy.insert(QStringLiteral("allow_torch_ops"), m_settings.allowTorchOps);
    policy.insert(QStringLiteral("allow_vendor_libraries"), m_settings.vendorLibraries);
    QJsonObject req;
    req.insert(QStringLiteral("schema"), QStringLiteral("kbstudio.eval-request/1"));
    req.insert(QStringLiteral("task_path"), QString(job.dir + QStringLiteral("/task.py")));
    req.insert(QStringLiteral("candidate_path"), QString(job.dir + QStringLiteral("/candidate.py")));
    req.insert(QStringLiteral("device"), m_settings.device);
    req.insert(QStringLiteral("gpu_index"), 0);
    // Builds are content-addressed, so a cache can be shared between databases.
    const QString sharedCache = qEnvironmentVariable("KBSTUDIO_BUILD_CACHE");
    req.insert(QStringLiteral("build_dir"), sharedCache.isEmpty() ? QString(m_workRoot + QStringLiteral("/build-cache")) : sharedCache);
    req.insert(QStringLiteral("correctness_trials"), m_settings.correctnessTrials);
    req.insert(QStringLiteral("timing_trials"), m_settings.timingTrials);
    req.insert(QStringLiteral("warmup"), m_settings.warmup);
    req.insert(QStringLiteral("max_timing_seconds"), m_settings.maxTimingSeconds);
    req.insert(QStringLiteral("seed"), static_cast<double>(seed));
    req.insert(QStringLiteral("precision"), m_settings.precision);
    req.insert(QStringLiteral("atol"), m_settings.atol);
    req.insert(QStringLiteral("rtol"), m_settings.rtol);
    req.insert(QStringLiteral("allow_tf32"), m_settings.allowTf32);
    req.insert(QStringLiteral("baseline"), baseline);
    req.insert(QStringLiteral("policy"), policy);
    req.insert(QStringLiteral("build_timeout_seconds"), m_settings.buildTimeoutSeconds);
    return QJsonDocument(req).toJson(QJsonDocument::Compact);
}

void RunEngine::startPhase(const std::shared_ptr<Job>& job, bool buildPhase)
{
    db::RunRepository(m_db->connection()).setAttemptStatus(job->attempt.id, buildPhase ? "building" : "evaluating");
    // The result goes to a private file outside the attempt's folder, under a name the candidate
    // cannot guess; the request (with the secret seed) goes through standard input only.
    QDir().mkpath(m_workRoot + QStringLiteral("/results"));
    job->resultPath = QStringLiteral("%1/results/%2.json")
                          .arg(m_workRoot, QString::number(QRandomGenerator::system()->generate64(), 16));
    QFile::remove(job->resultPath);
    auto* proc = new HarnessProcess(this);
    job->process = proc;
    ++(buildPhase ? m_building : m_evaluating);
    connect(proc, &HarnessProcess::finished, this, [this, job, proc, buildPhase](const HarnessOutcome& outcome) {
        proc->deleteLater();
        if (!m_inFlight.contains(job))
            return; // cancelled
        --(buildPhase ? m_building : m_evaluating);
        onPhaseFinished(job, buildPhase, outcome);
    });
    const double timeout = buildPhase ? m_settings.buildTimeoutSeconds : m_settings.timeoutSeconds;
    proc->start({buildPhase ? QStringLiteral("build") : QStringLiteral("evaluate"), QStringLiteral("--request"),
                 QStringLiteral("-"), QStringLiteral("--result"), job->resultPath},
                job->dir, static_cast<int>(timeout * 1000), requestJson(*job));
    emitProgress();
}

void RunEngine::onPhaseFinished(const std::shared_ptr<Job>& job, bool buildPhase, const HarnessOutcome& outcome)
{
    if (m_cancelling || m_runId == 0)
        return;
    QFile f(job->resultPath);
    const bool haveFile = f.open(QIODevice::ReadOnly);
    const QByteArray bytes = haveFile ? f.readAll() : QByteArray();
    f.close();
    QFile::remove(job->resultPath);
    const QJsonObject doc = QJsonDocument::fromJson(bytes).object();
    const bool haveResult = outcome.finished && outcome.exitCode == 0 && haveFile;
    if (!haveResult && outcome.finished && doc.value(QStringLiteral("schema")).toString() == QLatin1String("kbstudio.eval-error/1")) {
        // The harness refused the request or the task (exit 2) or failed itself (exit 1).
        finishWithoutResult(job, QStringLiteral("harness_error"),
                            QStringLiteral("the harness exited with code %1 (%2): %3")
                                .arg(outcome.exitCode)
                                .arg(doc.value(QStringLiteral("error")).toString(),
                                     doc.value(QStringLiteral("message")).toString()));
        QTimer::singleShot(0, this, &RunEngine::pump);
        return;
    }
    if (!haveResult) {
        const QString phase = buildPhase ? QStringLiteral("build: ") : QStringLiteral("evaluation: ");
        if (outcome.timedOut)
            finishWithoutResult(job, QStringLiteral("timeout"), phase + outcome.error);
        else if (outcome.crashed)
            finishWithoutResult(job, QStringLiteral("runtime_error"), phase + outcome.error);
        else
            finishWithoutResult(job, QStringLiteral("harness_error"),
                                outcome.error.isEmpty() ? QStringLiteral("the harness wrote no result") : outcome.error);
        QTimer::singleShot(0, this, &RunEngine::pump);
        return;
    }
    if (buildPhase && doc.value(QStringLiteral("verdict")).toString() == QLatin1String("built")) {
        m_built.enqueue(job);
        QTimer::singleShot(0, this, &RunEngine::pump);
        emitProgress();
        return;
    }
    auto parsed = parseHarnessResult(bytes, m_settings, toQ(job->task.sourceHash));
    if (!parsed.ok)
        finishWithoutResult(job, QStringLiteral("harness_error"), parsed.error);
    else
        finishWithRecord(job, std::move(parsed.record));
    QTimer::singleShot(0, this, &RunEngine::pump);
}

void RunEngine::finishWithRecord(const std::shared_ptr<Job>& job, db::EvaluationRecord record)
{
    record.attemptId = job->attempt.id;
    record.candidate.attemptId = job->attempt.id;
    record.candidate.code = job->code.toStdString();
    record.candidate.codeHash = sha256Hex(job->code).toStdString();
    record.evaluation.attemptId = job->attempt.id;
    try {
        db::EvaluationRepository(m_db->connection()).store(record);
    } catch (const db::Error& e) {
        Q_EMIT logLine(QStringLiteral("cannot store attempt %1: %2").arg(job->attempt.id).arg(QString::fromUtf8(e.what())));
        m_inFlight.removeAll(job);
        finishRun(QStringLiteral("failed"), QString::fromUtf8(e.what()));
        return;
    }
    m_inFlight.removeAll(job);
    ++m_finishedThisSession;
    AttemptResult r;
    r.runId = m_runId;
    r.attemptId = job->attempt.id;
    r.model = toQ(job->attempt.modelName);
    r.task = toQ(job->attempt.taskKey);
    r.verdict = toQ(record.attemptVerdict);
    r.message = toQ(record.attemptMessage);
    r.suspicious = record.suspicious;
    r.speedupEager = record.speedupEager;
    Q_EMIT attemptFinished(r);
    emitProgress();
}

void RunEngine::finishWithoutResult(const std::shared_ptr<Job>& job, const QString& verdict, const QString& message)
{
    // The harness failing is the instrument's fault, not the candidate's: the attempt can be retried.
    const bool ours = verdict == QLatin1String("harness_error");
    if (!job->code.isEmpty()) {
        db::EvaluationRecord record;
        record.evaluation.verdict = verdict.toStdString();
        record.evaluation.message = message.toStdString();
        record.evaluation.settingsJson = QJsonDocument(m_settings.toJson()).toJson(QJsonDocument::Compact).toStdString();
        record.attemptVerdict = verdict.toStdString();
        record.attemptMessage = message.toStdString();
        record.attemptStatus = ours ? "failed" : "done";
        finishWithRecord(job, std::move(record));
        return;
    }
    db::RunRepository(m_db->connection())
        .finishAttempt(job->attempt.id, ours ? "failed" : "done", verdict.toStdString(), message.toStdString());
    m_inFlight.removeAll(job);
    ++m_finishedThisSession;
    AttemptResult r;
    r.runId = m_runId;
    r.attemptId = job->attempt.id;
    r.model = toQ(job->attempt.modelName);
    r.task = toQ(job->attempt.taskKey);
    r.verdict = verdict;
    r.message = message;
    Q_EMIT attemptFinished(r);
    emitProgress();
}

RunProgress RunEngine::progressSnapshot()
{
    RunProgress p;
    p.runId = m_runId;
    if (m_runId == 0)
        return p;
    const auto counts = db::RunRepository(m_db->connection()).statusCounts(m_runId);
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
    return p;
}

void RunEngine::emitProgress()
{
    if (m_runId != 0)
        Q_EMIT progress(progressSnapshot());
}

void RunEngine::cancel()
{
    if (m_runId == 0)
        return;
    m_cancelling = true;
    for (const auto& job : std::as_const(m_inFlight)) {
        if (job->process)
            job->process->kill();
    }
    auto& conn = m_db->connection();
    db::Transaction tx(conn);
    db::Statement q(conn, "UPDATE attempts SET status = 'cancelled', message = 'cancelled by the user' "
                          "WHERE run_id = ? AND status IN ('queued','generating','building','evaluating')");
    q.bind(1, m_runId).exec();
    tx.commit();
    m_pending.clear();
    m_built.clear();
    m_inFlight.clear();
    m_building = m_evaluating = 0;
    finishRun(QStringLiteral("cancelled"), QStringLiteral("cancelled by the user"));
}

void RunEngine::finishRun(const QString& status, const QString& message)
{
    const db::Id runId = m_runId;
    if (runId == 0)
        return;
    emitProgress();
    db::RunRepository(m_db->connection()).setRunStatus(runId, status.toStdString(), message.toStdString());
    m_runId = 0;
    Q_EMIT runFinished(runId, status, message);
}

} // namespace kb::engine
