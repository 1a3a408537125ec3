#include "keychainkeystore.h"

#ifdef KBSTUDIO_HAVE_QTKEYCHAIN
#include <QEventLoop>
#include <qt6keychain/keychain.h>
#endif

namespace kb::engine {

#ifdef KBSTUDIO_HAVE_QTKEYCHAIN
namespace {
const QString kService = QStringLiteral("kbstudio");

// QtKeychain's jobs are asynchronous; keys are read rarely (when a provider is built), so
// waiting in a local event loop is fine.
template <typename Job> bool runJob(Job& job, QString* error) {
    QEventLoop loop;
    QObject::connect(&job, &QKeychain::Job::finished, &loop, &QEventLoop::quit);
    job.setAutoDelete(false);
    job.start();
    loop.exec();
    if (job.error() == QKeychain::NoError)
        return true;
    if (error)
        *error = job.errorString();
    return false;
}
} // namespace

bool KeychainKeyStore::builtIn() {
    return true;
}

std::unique_ptr<KeychainKeyStore> KeychainKeyStore::createIfAvailable() {
    if (qEnvironmentVariable("KBSTUDIO_KEYSTORE") == QLatin1String("file"))
        return nullptr;
    // A read shows whether a keychain service answers (none on CI machines and servers).
    QKeychain::ReadPasswordJob probe(kService);
    probe.setKey(QStringLiteral("kbstudio-probe"));
    QString why;
    if (!runJob(probe, &why) && probe.error() != QKeychain::EntryNotFound)
        return nullptr;
    return std::unique_ptr<KeychainKeyStore>(new KeychainKeyStore);
}

QString KeychainKeyStore::describe() const {
    return QStringLiteral("the OS keychain (service %1)").arg(kService);
}

std::optional<QString> KeychainKeyStore::readKey(const QString& name, QString* error) const {
    QKeychain::ReadPasswordJob job(kService);
    job.setKey(name);
    QString why;
    if (runJob(job, &why))
        return job.textData();
    if (job.error() != QKeychain::EntryNotFound && error)
        *error = why;
    return std::nullopt;
}

bool KeychainKeyStore::writeKey(const QString& name, const QString& key, QString* error) {
    QKeychain::WritePasswordJob job(kService);
    job.setKey(name);
    job.setTextData(key);
    return runJob(job, error);
}

bool KeychainKeyStore::removeKey(const QString& name, QString* error) {
    QKeychain::DeletePasswordJob job(kService);
    job.setKey(name);
    QString why;
    if (runJob(job, &why) || job.error() == QKeychain::EntryNotFound)
        return true;
    if (error)
        *error = why;
    return false;
}

#else

bool KeychainKeyStore::builtIn() {
    return false;
}

std::unique_ptr<KeychainKeyStore> KeychainKeyStore::createIfAvailable() {
    return nullptr;
}

QString KeychainKeyStore::describe() const {
    return {};
}

std::optional<QString> KeychainKeyStore::readKey(const QString&, QString*) const {
    return std::nullopt;
}

bool KeychainKeyStore::writeKey(const QString&, const QString&, QString* error) {
    if (error)
        *error = QStringLiteral("built without QtKeychain");
    return false;
}

bool KeychainKeyStore::removeKey(const QString&, QString* error) {
    if (error)
        *error = QStringLiteral("built without QtKeychain");
    return false;
}

#endif

} // namespace kb::engine
