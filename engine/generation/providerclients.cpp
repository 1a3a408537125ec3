#include "providerclients.h"

#include "core/error.h"
#include "providers/keychainkeystore.h"
#include "providers/replayprovider.h"
#include "providers/requestoptions.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {
namespace {
QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QJsonObject settingsOf(const db::ProviderRow& p) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(p.settingsJson)).object();
}
} // namespace

bool isChatProviderKind(const QString& kind) {
    return kind == QLatin1String("openai") || kind == QLatin1String("anthropic") ||
           kind == QLatin1String("replay");
}

std::optional<ProviderConfig> providerConfig(const db::ProviderRow& provider,
                                             const std::vector<db::ModelRow>& models,
                                             const KeyStore* keys, QString* error) {
    const QString kind = q(provider.kind);
    if (kind != QLatin1String("openai") && kind != QLatin1String("anthropic")) {
        *error = QStringLiteral("provider '%1' is of kind '%2', not openai or anthropic")
                     .arg(q(provider.name), kind);
        return std::nullopt;
    }
    const QJsonObject s = settingsOf(provider);
    ProviderConfig c;
    c.name = q(provider.name);
    c.kind = kind == QLatin1String("anthropic") ? ProviderKind::Anthropic
                                                : ProviderKind::OpenAiCompatible;
    c.baseUrl = normalizedBaseUrl(kind, QUrl(q(provider.baseUrl)));
    if (!c.baseUrl.isValid() || c.baseUrl.scheme().isEmpty() || c.baseUrl.host().isEmpty()) {
        *error = QStringLiteral("provider '%1' has no valid base URL ('%2')")
                     .arg(c.name, q(provider.baseUrl));
        return std::nullopt;
    }
    if (const QString bad = checkRequestSettings(kind, s); !bad.isEmpty()) {
        *error = QStringLiteral("provider '%1': %2").arg(c.name, bad);
        return std::nullopt;
    }
    if (keys) {
        const QString keyName = s.value(QStringLiteral("key_name")).toString(c.name);
        QString why;
        // Only the key stored for this host: a provider of the same name elsewhere gets none.
        const auto key = keys->readKey(hostBoundKeyName(keyName, c.baseUrl), &why);
        if (!key && !why.isEmpty()) {
            *error = QStringLiteral("cannot read the key of provider '%1' from %2: %3")
                         .arg(c.name, keys->describe(), why);
            return std::nullopt;
        }
        if (!key && keys->readKey(keyName)) {
            *error =
                QStringLiteral(
                    "the key of provider '%1' is stored under its name only, from before keys were "
                    "bound to the provider's host; store it again (kbstudio-cli provider add "
                    "--name %1 "
                    "--kind %2 --base-url %3 --key-env VAR, or the provider dialog). Until then it "
                    "is "
                    "sent nowhere, so that a database naming a provider '%1' at another host "
                    "cannot "
                    "obtain it")
                    .arg(c.name, kind, c.baseUrl.toDisplayString());
            return std::nullopt;
        }
        c.apiKey = key.value_or(QString());
    }
    c.extraHeaders = headersFromSettings(s);
    c.requestDefaults = RequestOptions::fromSettings(s);
    c.maxConcurrent = s.value(QStringLiteral("max_concurrent")).toInt(c.maxConcurrent);
    c.tokenBudget = static_cast<qint64>(s.value(QStringLiteral("token_budget")).toDouble(0));
    c.transport.timeoutMs = static_cast<qint64>(
        s.value(QStringLiteral("timeout_ms")).toDouble(static_cast<double>(c.transport.timeoutMs)));
    c.transport.maxResponseBytes =
        static_cast<qint64>(s.value(QStringLiteral("max_response_bytes"))
                                .toDouble(static_cast<double>(c.transport.maxResponseBytes)));
    c.transport.retry.maxAttempts =
        s.value(QStringLiteral("max_attempts")).toInt(c.transport.retry.maxAttempts);
    if (s.contains(QStringLiteral("retry_base_delay_ms")))
        c.transport.retry.baseDelayMs =
            static_cast<qint64>(s.value(QStringLiteral("retry_base_delay_ms")).toDouble());
    c.openAi.useMaxCompletionTokens =
        s.value(QStringLiteral("use_max_completion_tokens")).toBool(false);
    for (const auto& m : models) {
        if (m.providerId != provider.id)
            continue;
        const QJsonObject modelSettings =
            QJsonDocument::fromJson(QByteArray::fromStdString(m.settingsJson)).object();
        if (const QString bad = checkRequestSettings(kind, modelSettings); !bad.isEmpty()) {
            *error = QStringLiteral("model '%1/%2': %3").arg(c.name, q(m.name), bad);
            return std::nullopt;
        }
        if (const RequestOptions o = RequestOptions::fromSettings(modelSettings); !o.isEmpty())
            c.modelOptions.insert(q(m.name), o);
        if (!m.priceInPerMTok && !m.priceOutPerMTok)
            continue;
        ModelPrice price;
        price.inputPerMTok = m.priceInPerMTok.value_or(0);
        price.outputPerMTok = m.priceOutPerMTok.value_or(0);
        const QJsonObject ms =
            QJsonDocument::fromJson(QByteArray::fromStdString(m.settingsJson)).object();
        if (ms.contains(QStringLiteral("price_cache_read")))
            price.cacheReadPerMTok = ms.value(QStringLiteral("price_cache_read")).toDouble();
        if (ms.contains(QStringLiteral("price_cache_write")))
            price.cacheWritePerMTok = ms.value(QStringLiteral("price_cache_write")).toDouble();
        c.prices.set(q(m.name), price);
    }
    return c;
}

ProviderClient makeProviderClient(const db::ProviderRow& provider,
                                  const std::vector<db::ModelRow>& models, const KeyStore* keys,
                                  QObject* parent, QString* error) {
    ProviderClient out;
    if (provider.kind == "replay") {
        const QString path = settingsOf(provider).value(QStringLiteral("transcript")).toString();
        try {
            out.client = ReplayProvider::fromFile(path, parent);
        } catch (const Error& e) {
            *error = e.message();
        }
        return out;
    }
    auto config = providerConfig(provider, models, keys, error);
    if (!config)
        return out;
    if (!config->apiKey.isEmpty())
        out.secrets.append(config->apiKey.toUtf8());
    out.client = new ChatProvider(std::move(*config), parent);
    return out;
}

QList<QByteArray> knownSecrets(const std::vector<db::ProviderRow>& providers,
                               const KeyStore* keys) {
    QList<QByteArray> out;
    if (!keys)
        return out;
    for (const auto& p : providers) {
        if (p.kind != "openai" && p.kind != "anthropic")
            continue;
        const QString name = settingsOf(p).value(QStringLiteral("key_name")).toString(q(p.name));
        const QString bound =
            hostBoundKeyName(name, normalizedBaseUrl(q(p.kind), QUrl(q(p.baseUrl))));
        if (bound.isEmpty())
            continue;
        const auto key = keys->readKey(bound);
        // Very short values would redact ordinary text; real keys are long.
        if (key && key->size() >= 8 && !out.contains(key->toUtf8()))
            out.append(key->toUtf8());
    }
    return out;
}

std::unique_ptr<KeyStore> defaultKeyStore() {
    if (auto keychain = KeychainKeyStore::createIfAvailable())
        return keychain;
    return std::make_unique<FileKeyStore>();
}

} // namespace kb::engine
