#include "attemptgenerator.h"

#include "db/evaluationrepository.h"
#include "db/runrepository.h"
#include "generation/feedback.h"
#include "imports/candidateimport.h"
#include "phaseexecution.h"

namespace kb::engine {

AttemptGenerator::AttemptGenerator(db::Connection& conn, QObject* parent)
    : QObject(parent)
    , m_conn(conn) {}

AttemptGenerator::~AttemptGenerator() = default;

void AttemptGenerator::beginRun(db::Id runId, const EvalSettings& settings,
                                const QString& buildCacheRoot) {
    if (runId != m_runId)
        m_settings.reset();
    m_runId = runId;
    m_eval = settings;
    m_buildCacheRoot = buildCacheRoot;
}

const GenerationSettings& AttemptGenerator::settings() {
    if (!m_settings)
        m_settings = storedGenerationSettings(m_conn, m_runId);
    return *m_settings;
}

std::optional<QString> AttemptGenerator::start(const JobPtr& job, const db::ModelRow& model) {
    // Imported attempts ask no model: their stored code is the candidate (imports/).
    const bool imported = model.providerKind == kImportedProviderKind;
    const GenerationBackend backend =
        imported ? GenerationBackend{} : m_backends.backendFor(m_conn, model);
    if (!imported && !backend.provider && !backend.client)
        return backend.error;
    GenerationContext ctx = attemptGenerationContext(job->attempt, job->task, model);
    ctx.settings = settings();
    ctx.eval = m_eval;
    ctx.eval.seed = 0; // generation never sees the run's secret seed
    ctx.workDir = job->dir;
    ctx.buildCacheDir = modelBuildCacheDir(m_buildCacheRoot, model.id);
    ctx.buildCacheRoot = m_buildCacheRoot;
    ctx.secrets = job->secrets = backend.secrets;
    ctx.firstTurnIndex = db::RunRepository(m_conn).nextTurnIndex(job->attempt.id);
    ctx.storeTurn = turnStorer(m_conn, this, [this](db::Id attemptId, const db::Error& error) {
        if (m_callbacks.turnNotStored)
            m_callbacks.turnNotStored(attemptId, error);
    });
    ctx.log = [this](const QString& line) { Q_EMIT logLine(line); };

    // Writing the first candidate holds a generation slot, given back when the candidate is
    // there, or when the job ends (cancelled) while it is being written.
    ++m_generating;
    const std::weak_ptr<bool> alive = m_alive;
    const db::Id runId = m_runId;
    job->generationSlot = std::shared_ptr<void>(nullptr, [this, alive, runId](void*) {
        if (!alive.expired() && m_runId == runId && m_generating > 0)
            --m_generating;
    });
    auto* session = makeAttemptSession(m_conn, ctx, imported, backend, this);
    job->session.reset(session);
    const std::weak_ptr<AttemptJob> weak = job;
    const auto wanted = [this, weak]() -> JobPtr {
        auto j = weak.lock();
        return j && m_callbacks.wanted(j) ? j : nullptr;
    };
    connect(session, &GenerationSession::candidateReady, this, [this, wanted](const QString& code) {
        if (const JobPtr j = wanted())
            m_callbacks.candidate(j, code);
    });
    connect(session, &GenerationSession::noCandidate, this,
            [this, wanted](const QString& message, bool) {
                if (const JobPtr j = wanted())
                    m_callbacks.noCandidate(j, message);
            });
    connect(session, &GenerationSession::providerFailed, this,
            [this, wanted](const QString& message, int status) {
                if (const JobPtr j = wanted())
                    m_callbacks.providerFailed(j, message, status);
            });
    session->start();
    return std::nullopt;
}

bool AttemptGenerator::continueAfter(const JobPtr& job, db::EvaluationRecord& record) {
    if (job->session)
        record.candidate.turnIndex = job->session->candidateTurnIndex();
    const GenerationSettings& g = settings();
    if (!job->turns.absorb(record, job->session && job->session->canContinue(), g))
        return false;
    const QString feedback = feedbackText(record, g.turns - job->turns.evaluatedTurns());
    record.attemptStatus = db::toString(db::AttemptStatus::Generating);
    bindRecordToAttempt(record, job->attempt.id, job->code);
    // The bookkeeping of the record itself (the evaluation of this turn) is untouched above:
    // only the attempt's summary follows the best turn.
    db::EvaluationRepository(m_conn).store(record);
    Q_EMIT logLine(QStringLiteral("attempt %1 (%2 / %3): turn %4 %5; asking for another candidate")
                       .arg(job->attempt.id)
                       .arg(QString::fromStdString(job->attempt.modelName),
                            QString::fromStdString(job->attempt.taskKey))
                       .arg(job->turns.evaluatedTurns())
                       .arg(QString::fromStdString(record.evaluation.verdict)));
    job->session->continueWith(feedback);
    return true;
}

} // namespace kb::engine
