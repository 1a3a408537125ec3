#pragma once
// API keys in the OS keychain (Secret Service, KWallet, macOS Keychain) through QtKeychain,
// when the program was built with it and a keychain service answers. Programs get it from
// defaultKeyStore(), which falls back to the 0600 FileKeyStore otherwise (CI, servers).

#include "keystore.h"

#include <memory>

namespace kb::engine {

class KeychainKeyStore : public KeyStore {
public:
    // nullptr when built without QtKeychain, when $KBSTUDIO_KEYSTORE is "file", or when no
    // keychain service answers a probe.
    static std::unique_ptr<KeychainKeyStore> createIfAvailable();
    static bool builtIn();

    QString describe() const override;
    std::optional<QString> readKey(const QString& name, QString* error = nullptr) const override;
    bool writeKey(const QString& name, const QString& key, QString* error = nullptr) override;
    bool removeKey(const QString& name, QString* error = nullptr) override;

private:
    KeychainKeyStore() = default;
};

} // namespace kb::engine
