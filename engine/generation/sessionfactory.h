#pragma once
// Picks the session for an attempt: the agent loop, or one-shot/multi-turn chat, over a chat
// client; the synchronous Provider (demo) for offline stored candidates.

#include "generationsession.h"

#include <QPointer>

namespace kb::engine {

class ChatClient;
class Provider;

// Exactly one of provider and client is set.
GenerationSession* makeGenerationSession(const GenerationContext& context, Provider* provider,
                                         ChatClient* client, QObject* parent);

// Owns a session for the run engine's job: ending the job (finished or cancelled) ends the
// session's requests and processes, outside of the session's own signal handlers.
class SessionHandle {
public:
    SessionHandle() = default;
    explicit SessionHandle(GenerationSession* s)
        : m_session(s) {}
    SessionHandle(const SessionHandle&) = delete;
    SessionHandle& operator=(const SessionHandle&) = delete;
    ~SessionHandle() { reset(); }
    void reset(GenerationSession* s = nullptr) {
        if (m_session) {
            m_session->disconnect();
            m_session->deleteLater();
        }
        m_session = s;
    }
    GenerationSession* get() const { return m_session; }
    GenerationSession* operator->() const { return m_session; }
    explicit operator bool() const { return !m_session.isNull(); }

private:
    QPointer<GenerationSession> m_session;
};

} // namespace kb::engine
