#pragma once
// Where a model's candidates come from: the offline demo provider, or the chat client of the
// model's provider, made once per provider and kept (with the keys to redact from everything
// stored) until the key store changes.

#include "db/records.h"
#include "db/sqlite.h"
#include "generation/generationsession.h"
#include "generation/generationsettings.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <memory>

class QObject;

namespace kb::engine {

class ChatClient;
class KeyStore;
class Provider;
struct ProviderClient;

struct GenerationBackend {
    Provider* provider = nullptr;
    ChatClient* client = nullptr;
    QList<QByteArray> secrets;
    QString error; // neither provider nor client: why
};

class GenerationBackends {
public:
    // Chat clients are children of clientParent.
    explicit GenerationBackends(QObject* clientParent);
    ~GenerationBackends();
    // Where provider API keys are read (default: the OS keychain, else the 0600 key file).
    void setKeyStore(std::shared_ptr<KeyStore> keys);
    // Throws db::Error.
    GenerationBackend backendFor(db::Connection& conn, const db::ModelRow& model);

private:
    QObject* m_clientParent;
    QHash<QString, std::shared_ptr<Provider>> m_providers;         // by provider kind
    QHash<QString, std::shared_ptr<ProviderClient>> m_chatClients; // by provider name
    std::shared_ptr<KeyStore> m_keys;
};

// How a run's models are asked, as stored with it (one turn unless the run is multi-turn).
GenerationSettings storedGenerationSettings(db::Connection& conn, db::Id runId);

// The attempt's part of its generation context: which model, task and sample.
GenerationContext attemptGenerationContext(const db::AttemptRow& attempt, const db::TaskRow& task,
                                           const db::ModelRow& model);
// The session writing an attempt's candidates: the imported candidate (imported models ask no
// model), else the backend's provider or chat client.
GenerationSession* makeAttemptSession(db::Connection& conn, const GenerationContext& context,
                                      bool imported, const GenerationBackend& backend,
                                      QObject* parent);

} // namespace kb::engine
