#include "transcriptexport.h"

#include "db/runrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

QList<ChatResponse> attemptTranscript(db::Connection& conn, db::Id attemptId) {
    QList<ChatResponse> out;
    for (const auto& t : db::RunRepository(conn).turns(attemptId)) {
        if (!t.error.empty())
            continue; // a failed call has no answer to serve again
        ChatResponse r;
        r.content = QString::fromStdString(t.response);
        r.reasoning = QString::fromStdString(t.reasoning);
        const auto reason = stopReasonFromName(QString::fromStdString(t.stopReason));
        r.stopReason = reason.value_or(StopReason::EndTurn);
        if (r.stopReason == StopReason::Refusal) {
            r.refusal = r.content;
            r.content.clear();
        }
        const QJsonArray calls =
            QJsonDocument::fromJson(QByteArray::fromStdString(t.toolCallsJson)).array();
        for (const auto& v : calls) {
            const QJsonObject c = v.toObject();
            r.toolCalls.append({c.value(QStringLiteral("id")).toString(),
                                c.value(QStringLiteral("name")).toString(),
                                c.value(QStringLiteral("arguments")).toString()});
        }
        r.usage = {t.inputTokens, t.outputTokens, t.cacheReadTokens, t.cacheWriteTokens};
        r.latencyMs = t.latencyMs;
        r.timeToFirstTokenMs = t.ttftMs.value_or(0.0);
        r.model = QString::fromStdString(t.modelSnapshot);
        out.append(r);
    }
    return out;
}

} // namespace kb::engine
