#include "generationsession.h"

#include <QPointer>

namespace kb::engine {

RenderedPrompt oneShotPrompt(const GenerationContext& context) {
    PromptValues v;
    v.taskSource = context.taskSource;
    v.device = context.eval.device;
    v.precision = context.eval.precision;
    v.atol = context.eval.atol;
    v.rtol = context.eval.rtol;
    const QString text = context.settings.promptTemplateText.isEmpty()
                             ? loadPromptTemplate(kPromptStudio).text
                             : context.settings.promptTemplateText;
    return renderPrompt(text, v);
}

GenerationSession::GenerationSession(GenerationContext context, QObject* parent)
    : QObject(parent)
    , m_ctx(std::move(context))
    , m_nextTurn(m_ctx.firstTurnIndex)
    , m_candidateTurn(m_ctx.firstTurnIndex) {}

void GenerationSession::store(const db::TurnRow& row) const {
    if (m_ctx.storeTurn)
        m_ctx.storeTurn(row);
}

void GenerationSession::log(const QString& line) const {
    if (m_ctx.log)
        m_ctx.log(line);
}

void GenerationSession::emitCandidateLater(const QString& code) {
    QMetaObject::invokeMethod(
        this, [this, code] { Q_EMIT candidateReady(code); }, Qt::QueuedConnection);
}

void GenerationSession::emitNoCandidateLater(const QString& message, bool refused) {
    QMetaObject::invokeMethod(
        this, [this, message, refused] { Q_EMIT noCandidate(message, refused); },
        Qt::QueuedConnection);
}

} // namespace kb::engine
