#pragma once
// The replay provider: not a model. It answers each request with the next turn of a stored
// transcript, so a run can be reproduced offline, and fails clearly once the conversation asks
// for more turns than were stored.

#include "chatclient.h"

namespace kb::engine {

class ReplayProvider : public ChatClient {
    Q_OBJECT
public:
    explicit ReplayProvider(QList<ChatResponse> turns, QObject* parent = nullptr);
    // Reads a transcript file (see transcriptFromJson); throws Error when it cannot.
    static ReplayProvider* fromFile(const QString& path, QObject* parent = nullptr);

    QString kind() const override { return QStringLiteral("replay"); }
    bool isModel() const override { return false; }
    quint64 send(const ChatRequest& request) override;
    void cancel(quint64 id) override;

    int turnsStored() const { return static_cast<int>(m_turns.size()); }
    int turnsServed() const { return m_next; }

private:
    QList<ChatResponse> m_turns;
    int m_next = 0;
    quint64 m_nextId = 0;
    QList<quint64> m_cancelled;
};

} // namespace kb::engine
