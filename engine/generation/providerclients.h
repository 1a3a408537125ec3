#pragma once
// Builds the chat client of a configured provider (providers and models tables): the protocol
// by kind, the base URL, the limits from its settings, prices from its models, and the API key
// from the key store. The key is read here and nowhere else, and only kept in memory.

#include "db/records.h"
#include "providers/chatprovider.h"
#include "providers/keystore.h"

#include <memory>
#include <vector>

namespace kb::engine {

// Provider settings_json fields: key_name (default: the provider's name), max_concurrent,
// token_budget, timeout_ms, max_attempts (transport retries), max_response_bytes,
// use_max_completion_tokens (OpenAI), transcript (replay: the transcript file).
struct ProviderClient {
    ChatClient* client = nullptr; // owned by the parent passed in
    QList<QByteArray> secrets;    // redact these from everything stored
};

bool isChatProviderKind(const QString& kind); // openai, anthropic, replay

// nullptr client with *error set when the provider cannot be built (unknown kind, unreadable
// key store, missing transcript).
ProviderClient makeProviderClient(const db::ProviderRow& provider,
                                  const std::vector<db::ModelRow>& models, const KeyStore* keys,
                                  QObject* parent, QString* error);

// The ProviderConfig of an openai/anthropic provider (also for `provider test`).
std::optional<ProviderConfig> providerConfig(const db::ProviderRow& provider,
                                             const std::vector<db::ModelRow>& models,
                                             const KeyStore* keys, QString* error);

// Every key the store holds for these providers: what is stored from any of them is redacted
// of all, so a key one provider's agent digs up never reaches the database or another model.
QList<QByteArray> knownSecrets(const std::vector<db::ProviderRow>& providers, const KeyStore* keys);

// The key store programs use: the OS keychain where one is running, else FileKeyStore.
std::unique_ptr<KeyStore> defaultKeyStore();

} // namespace kb::engine
