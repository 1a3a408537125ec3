#include "importedsession.h"

namespace kb::engine {

ImportedSession::ImportedSession(GenerationContext context,
                                 std::optional<db::ImportedCandidateRow> imported, QObject* parent)
    : GenerationSession(std::move(context), parent)
    , m_imported(std::move(imported)) {}

void ImportedSession::start() {
    if (!m_imported) {
        emitNoCandidateLater(
            QStringLiteral(
                "model %1 is an imported model and this attempt has no imported candidate "
                "(its candidates come from kbstudio-cli import-candidates)")
                .arg(m_ctx.model));
        return;
    }
    const QString origin = QString::fromStdString(m_imported->origin);
    const QString code = QString::fromStdString(m_imported->code);
    db::TurnRow turn;
    turn.attemptId = m_ctx.attemptId;
    turn.turnIndex = takeTurnIndex();
    turn.prompt = QStringLiteral("(imported candidate, read from %1; this program sent no prompt)")
                      .arg(origin)
                      .toStdString();
    turn.response = m_imported->code;
    turn.stopReason = "imported";
    store(turn);
    if (code.trimmed().isEmpty()) {
        emitNoCandidateLater(QStringLiteral("the imported candidate (%1) is empty").arg(origin));
        return;
    }
    markCandidateTurn(turn.turnIndex);
    emitCandidateLater(code);
}

} // namespace kb::engine
