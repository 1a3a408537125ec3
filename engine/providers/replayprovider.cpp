#include "replayprovider.h"

#include "core/error.h"

#include <QFile>

namespace kb::engine {

ReplayProvider::ReplayProvider(QList<ChatResponse> turns, QObject* parent)
    : ChatClient(parent)
    , m_turns(std::move(turns)) {}

ReplayProvider* ReplayProvider::fromFile(const QString& path, QObject* parent) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw Error(
            QStringLiteral("replay provider: cannot read %1: %2").arg(path, f.errorString()));
    QString why;
    auto turns = transcriptFromJson(f.readAll(), &why);
    if (!turns)
        throw Error(QStringLiteral("replay provider: %1: %2").arg(path, why));
    return new ReplayProvider(std::move(*turns), parent);
}

quint64 ReplayProvider::send(const ChatRequest& request) {
    const quint64 id = ++m_nextId;
    const int turn = m_next++;
    const bool stream = request.stream;
    QMetaObject::invokeMethod(
        this,
        [this, id, turn, stream] {
            if (m_cancelled.removeOne(id)) {
                Q_EMIT failed(id, ProviderError{QStringLiteral("cancelled"), 0, false, -1, {}});
                return;
            }
            if (turn >= m_turns.size()) {
                ProviderError e;
                e.message = QStringLiteral("the conversation diverged from the stored transcript: "
                                           "turn %1 was requested but only %2 turns are stored")
                                .arg(turn + 1)
                                .arg(m_turns.size());
                Q_EMIT failed(id, e);
                return;
            }
            const ChatResponse& r = m_turns.at(turn);
            if (stream) {
                if (!r.reasoning.isEmpty())
                    Q_EMIT reasoningDelta(id, r.reasoning);
                if (!r.content.isEmpty())
                    Q_EMIT streamDelta(id, r.content);
            }
            Q_EMIT finished(id, r);
        },
        Qt::QueuedConnection);
    return id;
}

void ReplayProvider::cancel(quint64 id) {
    if (id > 0 && id <= m_nextId)
        m_cancelled.append(id);
}

} // namespace kb::engine
