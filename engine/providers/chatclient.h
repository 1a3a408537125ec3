#pragma once
// What agents and runs talk to: something that answers chat requests asynchronously. The
// network providers (ChatProvider) and the offline replay provider both implement it.

#include "chattypes.h"

#include <QObject>

namespace kb::engine {

class ChatClient : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    // "openai", "anthropic", "replay", ...
    virtual QString kind() const = 0;
    // False for offline stand-ins (replay), whose answers show the machinery, not a model.
    virtual bool isModel() const { return true; }
    // Starts the request; returns its id. The outcome is exactly one of finished or failed,
    // always emitted after send() has returned.
    virtual quint64 send(const ChatRequest& request) = 0;
    // Ends a request that has not finished; it fails with "cancelled".
    virtual void cancel(quint64 id) = 0;

Q_SIGNALS:
    void finished(quint64 id, const kb::engine::ChatResponse& response);
    void failed(quint64 id, const kb::engine::ProviderError& error);
    // Streamed requests: text and reasoning as they are written.
    void streamDelta(quint64 id, const QString& text);
    void reasoningDelta(quint64 id, const QString& text);
};

} // namespace kb::engine
