#include "keystore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <cstdio>

namespace kb::engine {

QString hostBoundKeyName(const QString& keyName, const QUrl& baseUrl) {
    const QString scheme = baseUrl.scheme().toLower();
    const QString host = baseUrl.host(QUrl::FullyEncoded).toLower();
    if (host.isEmpty() || (scheme != QLatin1String("http") && scheme != QLatin1String("https")))
        return {};
    const int port = baseUrl.port(scheme == QLatin1String("https") ? 443 : 80);
    return QStringLiteral("%1@%2://%3:%4").arg(keyName, scheme, host).arg(port);
}
namespace {

constexpr QFile::Permissions kOwnerOnly = QFile::ReadOwner | QFile::WriteOwner;
constexpr QFile::Permissions kGroupOrOther = QFile::ReadGroup | QFile::WriteGroup |
                                             QFile::ExeGroup | QFile::ReadOther |
                                             QFile::WriteOther | QFile::ExeOther;

} // namespace

FileKeyStore::FileKeyStore(QString path)
    : m_path(std::move(path)) {}

QString FileKeyStore::defaultPath() {
    const QString env = qEnvironmentVariable("KBSTUDIO_CONFIG_DIR");
    const QString dir =
        env.isEmpty()
            ? QString(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
                      QStringLiteral("/kbstudio"))
            : env;
    return QString(dir + QStringLiteral("/keys.json"));
}

QString FileKeyStore::describe() const {
    return QStringLiteral("file %1 (readable by its owner only)")
        .arg(QDir::toNativeSeparators(m_path));
}

std::optional<QHash<QString, QString>> FileKeyStore::load(QString* error) const {
    QHash<QString, QString> keys;
    QFile f(m_path);
    if (!f.exists())
        return keys;
    // Someone loosened the mode: close it again before reading the secrets.
    if (f.permissions() & kGroupOrOther)
        f.setPermissions(kOwnerOnly);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read the key file %1: %2").arg(m_path, f.errorString());
        return std::nullopt;
    }
    QJsonParseError perr{};
    const auto doc = QJsonDocument::fromJson(f.readAll(), &perr);
    if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
        // The message never quotes the file: it holds secrets.
        if (error)
            *error =
                QStringLiteral("the key file %1 is not valid JSON; fix or remove it").arg(m_path);
        return std::nullopt;
    }
    const auto obj = doc.object().value(QStringLiteral("keys")).toObject();
    for (auto it = obj.begin(); it != obj.end(); ++it)
        keys.insert(it.key(), it.value().toString());
    return keys;
}

bool FileKeyStore::save(const QHash<QString, QString>& keys, QString* error) const {
    const QFileInfo info(m_path);
    QDir dir = info.absoluteDir();
    if (!dir.exists()) {
        if (!QDir().mkpath(dir.absolutePath())) {
            if (error)
                *error = QStringLiteral("cannot create the folder %1").arg(dir.absolutePath());
            return false;
        }
        QFile::setPermissions(dir.absolutePath(), kOwnerOnly | QFile::ExeOwner);
    }
    QJsonObject obj;
    for (auto it = keys.begin(); it != keys.end(); ++it)
        obj.insert(it.key(), it.value());
    const QByteArray bytes =
        QJsonDocument(QJsonObject{{QStringLiteral("keys"), obj}}).toJson(QJsonDocument::Indented);

    // The new file is created 0600 (never briefly world-readable), then renamed over the old.
    const QString tmp = QString(m_path + QStringLiteral(".new"));
    QFile::remove(tmp);
    QFile f(tmp);
    if (!f.open(QIODevice::WriteOnly | QIODevice::NewOnly, kOwnerOnly)) {
        if (error)
            *error = QStringLiteral("cannot write the key file %1: %2").arg(tmp, f.errorString());
        return false;
    }
    if (f.write(bytes) != bytes.size() || !f.flush()) {
        if (error)
            *error = QStringLiteral("cannot write the key file %1: %2").arg(tmp, f.errorString());
        f.close();
        QFile::remove(tmp);
        return false;
    }
    f.close();
    // std::rename replaces the old file atomically on POSIX; elsewhere remove it first.
    if (std::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(m_path).constData()) !=
            0 &&
        !(QFile::remove(m_path) && QFile::rename(tmp, m_path))) {
        if (error)
            *error = QStringLiteral("cannot replace the key file %1").arg(m_path);
        QFile::remove(tmp);
        return false;
    }
    return true;
}

std::optional<QString> FileKeyStore::readKey(const QString& name, QString* error) const {
    const auto keys = load(error);
    if (!keys || !keys->contains(name))
        return std::nullopt;
    return keys->value(name);
}

bool FileKeyStore::writeKey(const QString& name, const QString& key, QString* error) {
    auto keys = load(error);
    if (!keys)
        return false;
    keys->insert(name, key);
    return save(*keys, error);
}

bool FileKeyStore::removeKey(const QString& name, QString* error) {
    auto keys = load(error);
    if (!keys)
        return false;
    if (!keys->remove(name))
        return true;
    return save(*keys, error);
}

std::optional<QString> MemoryKeyStore::readKey(const QString& name, QString*) const {
    const auto it = m_keys.constFind(name);
    if (it == m_keys.constEnd())
        return std::nullopt;
    return *it;
}

bool MemoryKeyStore::writeKey(const QString& name, const QString& key, QString*) {
    m_keys.insert(name, key);
    return true;
}

bool MemoryKeyStore::removeKey(const QString& name, QString*) {
    m_keys.remove(name);
    return true;
}

} // namespace kb::engine
