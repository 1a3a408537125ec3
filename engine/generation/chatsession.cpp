#include "chatsession.h"

#include "providers/prompt.h"
#include "providers/redaction.h"
#include "turnrecord.h"

namespace kb::engine {

ChatSession::ChatSession(GenerationContext context, ChatClient* client, QObject* parent)
    : GenerationSession(std::move(context), parent)
    , m_exchange(new ChatExchange(client, m_ctx.settings, this)) {
    connect(m_exchange, &ChatExchange::answered, this, &ChatSession::onAnswered);
    connect(m_exchange, &ChatExchange::callFailed, this, &ChatSession::onCallFailed);
}

void ChatSession::start() {
    m_messages.clear();
    // The template's system section and a skill chosen for a chat run go in as its system
    // instructions.
    const RenderedPrompt prompt = oneShotPrompt(m_ctx);
    QStringList system;
    if (!prompt.system.isEmpty())
        system << prompt.system;
    if (!m_ctx.settings.skillText.isEmpty())
        system << m_ctx.settings.skillText;
    if (!system.isEmpty())
        m_messages.append(ChatMessage::system(system.join(QStringLiteral("\n\n"))));
    m_messages.append(ChatMessage::user(prompt.user));
    ask(QStringLiteral("generation"));
}

bool ChatSession::canContinue() const {
    return m_ctx.mode == kModeMultiTurn && m_candidates < m_ctx.settings.turns;
}

void ChatSession::continueWith(const QString& feedback) {
    m_messages.append(ChatMessage::user(redactSecrets(feedback, m_ctx.secrets)));
    ask(QStringLiteral("feedback"));
}

void ChatSession::ask(const QString& role) {
    m_role = role;
    ChatRequest r;
    r.model = m_ctx.model;
    r.messages = m_messages;
    r.maxTokens = m_ctx.settings.maxTokens;
    r.temperature = m_ctx.settings.temperature;
    r.stream = m_ctx.settings.stream;
    m_exchange->send(r);
}

void ChatSession::onAnswered(const ChatRequest& sent, const ChatResponse& response) {
    TurnContext tc{m_ctx.attemptId, takeTurnIndex(), m_role, m_ctx.secrets};
    store(turnFromResponse(tc, sent, response));
    m_messages.append(ChatMessage::fromResponse(response));
    if (response.stopReason == StopReason::Refusal ||
        response.stopReason == StopReason::ContentFilter ||
        (!response.refusal.isEmpty() && response.content.trimmed().isEmpty())) {
        const QString why =
            response.refusal.isEmpty() ? response.content.trimmed() : response.refusal;
        Q_EMIT noCandidate(why.isEmpty()
                               ? QStringLiteral("the model refused to answer")
                               : QStringLiteral("the model refused: %1").arg(why.left(500)),
                           true);
        return;
    }
    const QString code = extractCandidateCode(response.content);
    if (code.trimmed().isEmpty()) {
        Q_EMIT noCandidate(
            response.stopReason == StopReason::MaxTokens
                ? QStringLiteral(
                      "the response reached the token limit (%1) before a complete code block")
                      .arg(sent.maxTokens)
                : QStringLiteral("the response holds no code block"),
            false);
        return;
    }
    ++m_candidates;
    markCandidateTurn(tc.turnIndex);
    Q_EMIT candidateReady(code);
}

void ChatSession::onCallFailed(const ChatRequest& sent, const ProviderError& error,
                               bool willRetry) {
    TurnContext tc{m_ctx.attemptId, takeTurnIndex(), m_role, m_ctx.secrets};
    store(turnFromError(tc, sent, error));
    if (willRetry) {
        log(QStringLiteral("attempt %1: %2; trying again").arg(m_ctx.attemptId).arg(error.message));
        return;
    }
    Q_EMIT providerFailed(redactSecrets(describeProviderError(error), m_ctx.secrets),
                          error.httpStatus);
}

} // namespace kb::engine
