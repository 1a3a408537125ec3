#pragma once
// Where API keys live. Keys never go into the database, logs, transcripts or exports: code
// asks a KeyStore by name when it builds a provider, and nowhere else.

#include <QHash>
#include <QString>
#include <QUrl>
#include <optional>

namespace kb::engine {

// The name a provider's key is stored under: its key name bound to where the key may be sent,
// "oai@https://api.openai.com:443". A database that names a provider the same but points it at
// another host asks for another entry and gets no key. Empty when the URL has no host.
QString hostBoundKeyName(const QString& keyName, const QUrl& baseUrl);

class KeyStore {
public:
    virtual ~KeyStore() = default;
    // What the store is, for the user ("file ~/.config/kbstudio/keys.json").
    virtual QString describe() const = 0;
    // nullopt with *error set when the store cannot be read; nullopt alone when there is no key.
    virtual std::optional<QString> readKey(const QString& name, QString* error = nullptr) const = 0;
    virtual bool writeKey(const QString& name, const QString& key, QString* error = nullptr) = 0;
    virtual bool removeKey(const QString& name, QString* error = nullptr) = 0;
};

// The fallback when no OS keychain is available: a JSON file only its owner can read (0600,
// in a 0700 folder), created that way from the start and replaced atomically.
class FileKeyStore : public KeyStore {
public:
    explicit FileKeyStore(QString path = defaultPath());
    // $KBSTUDIO_CONFIG_DIR/keys.json, else <per-user config dir>/kbstudio/keys.json.
    static QString defaultPath();
    QString path() const { return m_path; }

    QString describe() const override;
    std::optional<QString> readKey(const QString& name, QString* error = nullptr) const override;
    bool writeKey(const QString& name, const QString& key, QString* error = nullptr) override;
    bool removeKey(const QString& name, QString* error = nullptr) override;

private:
    std::optional<QHash<QString, QString>> load(QString* error) const;
    bool save(const QHash<QString, QString>& keys, QString* error) const;
    QString m_path;
};

// Keys held in memory only, for tests and one-off command lines.
class MemoryKeyStore : public KeyStore {
public:
    QString describe() const override { return QStringLiteral("memory"); }
    std::optional<QString> readKey(const QString& name, QString* = nullptr) const override;
    bool writeKey(const QString& name, const QString& key, QString* = nullptr) override;
    bool removeKey(const QString& name, QString* = nullptr) override;

private:
    QHash<QString, QString> m_keys;
};

} // namespace kb::engine
