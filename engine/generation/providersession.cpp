#include "providersession.h"

#include "providers/prompt.h"

#include <QTimer>

namespace kb::engine {

ProviderSession::ProviderSession(GenerationContext context, Provider* provider, QObject* parent)
    : GenerationSession(std::move(context), parent)
    , m_provider(provider) {}

void ProviderSession::start() {
    QTimer::singleShot(0, this, &ProviderSession::generate);
}

void ProviderSession::generate() {
    GenerationRequest req;
    req.model = m_ctx.model;
    req.taskKey = m_ctx.taskKey;
    req.taskName = m_ctx.taskName;
    req.level = m_ctx.level;
    req.taskSource = m_ctx.taskSource;
    req.sampleIndex = m_ctx.sampleIndex;
    req.prompt = flattenPrompt(oneShotPrompt(m_ctx));
    req.device = m_ctx.eval.device;
    const GenerationResult gen = m_provider->generate(req);
    db::TurnRow turn;
    turn.attemptId = m_ctx.attemptId;
    turn.turnIndex = takeTurnIndex();
    turn.prompt = gen.prompt.toStdString();
    turn.response = gen.response.toStdString();
    turn.inputTokens = gen.inputTokens;
    turn.outputTokens = gen.outputTokens;
    turn.latencyMs = gen.latencyMs;
    turn.stopReason = (gen.ok ? gen.stopReason : QStringLiteral("error")).toStdString();
    turn.error = gen.ok ? std::string() : gen.error.toStdString();
    store(turn);
    if (!gen.ok) {
        // The demo provider has no stored answer: the pseudo-model gives none.
        Q_EMIT noCandidate(gen.error, false);
        return;
    }
    const QString code = extractCandidateCode(gen.response);
    if (code.trimmed().isEmpty()) {
        Q_EMIT noCandidate(QStringLiteral("the response holds no code block"), false);
        return;
    }
    markCandidateTurn(turn.turnIndex);
    Q_EMIT candidateReady(code);
}

} // namespace kb::engine
