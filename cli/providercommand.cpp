#include "providercommand.h"

#include "clioptions.h"
#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "generation/providerclients.h"
#include "generation/transcriptexport.h"
#include "providers/chatprovider.h"
#include "providers/redaction.h"
#include "providers/requestoptions.h"
#include "requestsettingsoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QTimer>
#include <cstdio>

namespace kb::cli {
namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QCommandLineOption dbOption() {
    return {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")};
}

std::optional<db::ProviderRow> providerNamed(db::CatalogRepository& catalog, const QString& name) {
    for (const auto& p : catalog.providers())
        if (q(p.name) == name)
            return p;
    return std::nullopt;
}

int addProvider(QCommandLineParser& p) {
    const QString name = p.value(QStringLiteral("name"));
    const QString kind = p.value(QStringLiteral("kind"));
    const QString baseUrl = p.value(QStringLiteral("base-url"));
    if (name.isEmpty())
        return fail(QStringLiteral("--name is required"), 2);
    if (kind != QLatin1String("openai") && kind != QLatin1String("anthropic") &&
        kind != QLatin1String("replay"))
        return fail(QStringLiteral("--kind must be openai, anthropic or replay"), 2);
    db::Database database(databasePath(p).toStdString());
    db::CatalogRepository catalog(database.connection());
    const auto existing = providerNamed(catalog, name);
    // Adding a provider again updates it: settings not given now are kept.
    QJsonObject settings =
        existing && existing->kind == kind.toStdString()
            ? QJsonDocument::fromJson(QByteArray::fromStdString(existing->settingsJson)).object()
            : QJsonObject();
    QUrl normalized;
    if (kind == QLatin1String("replay")) {
        if (!p.isSet(QStringLiteral("transcript")))
            return fail(QStringLiteral("a replay provider needs --transcript FILE"), 2);
        settings.insert(QStringLiteral("transcript"),
                        QFileInfo(p.value(QStringLiteral("transcript"))).absoluteFilePath());
    } else {
        const QUrl url(baseUrl);
        if (baseUrl.isEmpty() || !url.isValid() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
            return fail(QStringLiteral(
                            "--base-url must be an http(s) URL (OpenAI-compatible: ending in /v1)"),
                        2);
        QString note;
        normalized = engine::normalizedBaseUrl(kind, url, &note);
        if (!note.isEmpty())
            out(QStringLiteral("note: %1\n").arg(note));
        QString bad;
        if (!applyRequestSettingsOptions(p, kind, false, settings, &bad))
            return fail(bad, 2);
    }
    for (const char* key : {"max-concurrent", "token-budget", "timeout-ms"}) {
        const QString opt = QString::fromLatin1(key);
        if (!p.isSet(opt))
            continue;
        bool ok = false;
        const double v = p.value(opt).toDouble(&ok);
        if (!ok || v < 0)
            return fail(QStringLiteral("--%1 must be a number >= 0").arg(opt), 2);
        settings.insert(QString(opt).replace(QLatin1Char('-'), QLatin1Char('_')), v);
    }
    QString key;
    if (p.isSet(QStringLiteral("key-env"))) {
        const QString var = p.value(QStringLiteral("key-env"));
        key = qEnvironmentVariable(var.toUtf8().constData());
        if (key.isEmpty())
            return fail(QStringLiteral("the environment variable %1 is empty or not set").arg(var),
                        2);
    } else if (p.isSet(QStringLiteral("key-stdin"))) {
        QTextStream in(stdin);
        key = in.readLine().trimmed();
        if (key.isEmpty())
            return fail(QStringLiteral("no key on standard input"), 2);
    }
    db::ProviderRow row;
    row.name = name.toStdString();
    row.kind = kind.toStdString();
    row.baseUrl =
        normalized.isValid() ? normalized.toString().toStdString() : baseUrl.toStdString();
    row.settingsJson = QJsonDocument(settings).toJson(QJsonDocument::Compact).toStdString();
    catalog.upsertProvider(row);
    out(QStringLiteral("provider '%1' (%2) registered\n").arg(name, kind));
    const QString keyName = settings.value(QStringLiteral("key_name")).toString(name);
    const QString boundName = engine::hostBoundKeyName(keyName, normalized);
    if (!key.isEmpty()) {
        auto store = engine::defaultKeyStore();
        QString why;
        if (boundName.isEmpty())
            return fail(QStringLiteral("a key needs a provider with an http(s) base URL"), 2);
        // Bound to the host: it is sent there and nowhere else.
        if (!store->writeKey(boundName, key, &why))
            return fail(
                QStringLiteral("cannot store the key in %1: %2").arg(store->describe(), why));
        out(QStringLiteral("key stored in %1, sent only to %2\n")
                .arg(store->describe(),
                     normalized.toDisplayString(QUrl::RemovePath | QUrl::RemoveUserInfo)));
    } else if (existing && QUrl(q(existing->baseUrl)).host() != normalized.host() &&
               !boundName.isEmpty()) {
        out(QStringLiteral("note: a key stored for the previous host is not sent to the new one; "
                           "pass --key-env "
                           "or --key-stdin to store one for %1\n")
                .arg(normalized.host()));
    }
    return 0;
}

int listProviders(QCommandLineParser& p) {
    db::Database database(databasePath(p).toStdString(), db::Database::Access::ReadOnly);
    db::CatalogRepository catalog(database.connection());
    const auto models = catalog.models();
    auto keys = engine::defaultKeyStore();
    for (const auto& prov : catalog.providers()) {
        QString keyState = QStringLiteral("no key");
        if (prov.kind == "demo" || prov.kind == "replay")
            keyState = QStringLiteral("offline, not a model");
        else if (const QString bound = engine::hostBoundKeyName(
                     QJsonDocument::fromJson(QByteArray::fromStdString(prov.settingsJson))
                         .object()
                         .value(QStringLiteral("key_name"))
                         .toString(q(prov.name)),
                     engine::normalizedBaseUrl(q(prov.kind), QUrl(q(prov.baseUrl))));
                 !bound.isEmpty() && keys->readKey(bound))
            keyState = QStringLiteral("key in %1, bound to this host").arg(keys->describe());
        out(QStringLiteral("%1  [%2]  %3  (%4)\n")
                .arg(q(prov.name), q(prov.kind), q(prov.baseUrl), keyState));
        for (const auto& m : models) {
            if (m.providerId != prov.id)
                continue;
            QString price;
            if (m.priceInPerMTok || m.priceOutPerMTok)
                price = QStringLiteral("  $%1 / $%2 per M tokens in/out")
                            .arg(m.priceInPerMTok.value_or(0))
                            .arg(m.priceOutPerMTok.value_or(0));
            const QString settings = m.settingsJson.empty() || m.settingsJson == "{}"
                                         ? QString()
                                         : QStringLiteral("  ") + q(m.settingsJson);
            out(QStringLiteral("    %1/%2%3%4\n").arg(q(prov.name), q(m.name), price, settings));
        }
    }
    return 0;
}

int testProvider(QCommandLineParser& p, const QString& name) {
    db::Database database(databasePath(p).toStdString(), db::Database::Access::ReadOnly);
    db::CatalogRepository catalog(database.connection());
    const auto row = providerNamed(catalog, name);
    if (!row)
        return fail(QStringLiteral("no provider named '%1'").arg(name));
    const auto models = catalog.models();
    QString model = p.value(QStringLiteral("model"));
    // --model takes provider/model as well as the model's own name.
    if (model.startsWith(name + QLatin1Char('/')))
        for (const auto& m : models)
            if (m.providerId == row->id && name + QLatin1Char('/') + q(m.name) == model)
                model = q(m.name);
    for (const auto& m : models)
        if (model.isEmpty() && m.providerId == row->id)
            model = q(m.name);
    if (model.isEmpty())
        return fail(
            QStringLiteral("provider '%1' has no model; add one with model add, or pass --model")
                .arg(name),
            2);
    auto keys = engine::defaultKeyStore();
    QString why;
    auto config = engine::providerConfig(*row, models, keys.get(), &why);
    if (!config)
        return fail(why);
    // Whatever the server sends back is printed without any key the store holds.
    QList<QByteArray> secrets = engine::knownSecrets(catalog.providers(), keys.get());
    if (!config->apiKey.isEmpty())
        secrets << config->apiKey.toUtf8();
    engine::ChatProvider provider(std::move(*config));
    QEventLoop loop;
    int code = 1;
    const quint64 id = provider.testConnection(model);
    QObject::connect(
        &provider, &engine::ChatProvider::connectionTested, &loop,
        [&](quint64 rid, const engine::ConnectionReport& r) {
            if (rid != id)
                return;
            out(QStringLiteral("models listed: %1%2\n")
                    .arg(r.models.size())
                    .arg(r.modelListed ? QStringLiteral(" (including %1)").arg(model)
                                       : QStringLiteral(" (%1 is not among them)").arg(model)));
            out(QStringLiteral(
                    "one-token request to %1: ok, %2 ms, %3 input / %4 output tokens, reply '%5'\n")
                    .arg(model)
                    .arg(r.reply.latencyMs, 0, 'f', 0)
                    .arg(r.reply.usage.inputTokens)
                    .arg(r.reply.usage.outputTokens)
                    .arg(engine::redactSecrets(r.reply.content, secrets).left(40)));
            code = 0;
            loop.quit();
        });
    QObject::connect(&provider, &engine::ChatClient::failed, &loop,
                     [&](quint64 rid, const engine::ProviderError& e) {
                         if (rid != id)
                             return;
                         QTextStream(stderr)
                             << "error: " << engine::redactSecrets(e.message, secrets) << '\n';
                         loop.quit();
                     });
    loop.exec();
    return code;
}

int writeTranscript(QCommandLineParser& p) {
    bool ok = false;
    const db::Id attemptId = p.value(QStringLiteral("attempt")).toLongLong(&ok);
    if (!ok || p.value(QStringLiteral("out")).isEmpty())
        return fail(
            QStringLiteral("usage: kbstudio-cli provider transcript --attempt ID --out FILE"), 2);
    db::Database database(databasePath(p).toStdString(), db::Database::Access::ReadOnly);
    const auto turns = engine::attemptTranscript(database.connection(), attemptId);
    if (turns.isEmpty())
        return fail(QStringLiteral("attempt %1 has no answered model call").arg(attemptId));
    QFile f(p.value(QStringLiteral("out")));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        f.write(QJsonDocument(engine::transcriptToJson(turns)).toJson()) < 0)
        return fail(QStringLiteral("cannot write %1: %2").arg(f.fileName(), f.errorString()));
    out(QStringLiteral("%1 turn(s) of attempt %2 written to %3; serve them again with provider add "
                       "--kind replay --transcript %3\n")
            .arg(turns.size())
            .arg(attemptId)
            .arg(f.fileName()));
    return 0;
}

} // namespace

int providerCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("provider add --name N --kind openai|anthropic|replay --base-url URL "
                       "[--key-env VAR | --key-stdin]\n"
                       "provider list\n"
                       "provider test NAME [--model M]: lists the models (/v1/models) and sends a "
                       "one-token request.\n"
                       "provider transcript --attempt ID --out FILE: an attempt's conversation, "
                       "for a replay provider.\n"
                       "Keys go to the OS keychain or the 0600 key file "
                       "($KBSTUDIO_CONFIG_DIR/keys.json), never the database."));
    p.addOption(dbOption());
    p.addOption({QStringLiteral("name"), QStringLiteral("Provider name."), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("kind"),
                 QStringLiteral("openai (any OpenAI-compatible server), anthropic or replay."),
                 QStringLiteral("KIND")});
    p.addOption(
        {QStringLiteral("base-url"),
         QStringLiteral(
             "Base URL (OpenAI-compatible: ending in /v1; Anthropic: https://api.anthropic.com)."),
         QStringLiteral("URL")});
    p.addOption({QStringLiteral("key-env"),
                 QStringLiteral("Read the API key from this environment variable."),
                 QStringLiteral("VAR")});
    p.addOption({QStringLiteral("key-stdin"),
                 QStringLiteral("Read the API key from the first line of standard input.")});
    p.addOption({QStringLiteral("max-concurrent"),
                 QStringLiteral("Requests at once (default 4; 0: no limit)."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("token-budget"),
                 QStringLiteral("Tokens one session may spend (0: no limit)."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("timeout-ms"),
                 QStringLiteral("Silence after which a request fails."), QStringLiteral("MS")});
    p.addOption({QStringLiteral("transcript"),
                 QStringLiteral("replay: the transcript file to re-serve."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("model"),
                 QStringLiteral("test: the model to ask (default: the provider's first)."),
                 QStringLiteral("M")});
    p.addOption({QStringLiteral("attempt"), QStringLiteral("transcript: the attempt."),
                 QStringLiteral("ID")});
    p.addOption({QStringLiteral("out"), QStringLiteral("transcript: the file to write."),
                 QStringLiteral("FILE")});
    addRequestSettingsOptions(p, false);
    p.addPositionalArgument(QStringLiteral("action"),
                            QStringLiteral("add, list, test or transcript"));
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("provider"), code))
        return code;
    const QStringList pos = p.positionalArguments();
    try {
        if (pos.value(0) == QLatin1String("add") && pos.size() == 1)
            return addProvider(p);
        if (pos.value(0) == QLatin1String("list") && pos.size() == 1)
            return listProviders(p);
        if (pos.value(0) == QLatin1String("test") && pos.size() == 2)
            return testProvider(p, pos.at(1));
        if (pos.value(0) == QLatin1String("transcript") && pos.size() == 1)
            return writeTranscript(p);
    } catch (const engine::Error& e) {
        return fail(e.message());
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    return fail(
        QStringLiteral("usage: kbstudio-cli provider add|list|test NAME|transcript (see --help)"),
        2);
}

int modelCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "model add --provider P --name M [--label L] [--price-in X --price-out Y] [request "
        "settings]: register (or update) a model of a provider; prices in US$ per million "
        "tokens. Request settings of the model win over its provider's. In runs, name it "
        "P/M where another provider has a model of the same name."));
    p.addOption(dbOption());
    p.addOption(
        {QStringLiteral("provider"), QStringLiteral("Provider name."), QStringLiteral("P")});
    p.addOption({QStringLiteral("name"), QStringLiteral("Model name as the provider knows it."),
                 QStringLiteral("M")});
    p.addOption({QStringLiteral("label"), QStringLiteral("Display name."), QStringLiteral("L")});
    p.addOption({QStringLiteral("price-in"), QStringLiteral("US$ per million input tokens."),
                 QStringLiteral("X")});
    p.addOption({QStringLiteral("price-out"), QStringLiteral("US$ per million output tokens."),
                 QStringLiteral("Y")});
    p.addOption({QStringLiteral("price-cache-read"),
                 QStringLiteral("US$ per million cached input tokens read."), QStringLiteral("X")});
    p.addOption({QStringLiteral("price-cache-write"),
                 QStringLiteral("US$ per million input tokens written to the cache."),
                 QStringLiteral("X")});
    addRequestSettingsOptions(p, true);
    p.addPositionalArgument(QStringLiteral("action"), QStringLiteral("add"));
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("model"), code))
        return code;
    if (p.positionalArguments() != QStringList{QStringLiteral("add")})
        return fail(
            QStringLiteral(
                "usage: kbstudio-cli model add --provider P --name M [--price-in X --price-out Y]"),
            2);
    if (p.value(QStringLiteral("provider")).isEmpty() || p.value(QStringLiteral("name")).isEmpty())
        return fail(QStringLiteral("--provider and --name are required"), 2);
    auto price = [&p](const char* opt, std::optional<double>* outValue) {
        const QString o = QString::fromLatin1(opt);
        if (!p.isSet(o))
            return true;
        bool ok = false;
        const double v = p.value(o).toDouble(&ok);
        if (!ok || v < 0)
            return false;
        *outValue = v;
        return true;
    };
    db::ModelRow m;
    std::optional<double> cacheRead, cacheWrite;
    if (!price("price-in", &m.priceInPerMTok) || !price("price-out", &m.priceOutPerMTok) ||
        !price("price-cache-read", &cacheRead) || !price("price-cache-write", &cacheWrite))
        return fail(QStringLiteral("prices must be numbers >= 0"), 2);
    try {
        db::Database database(databasePath(p).toStdString());
        db::CatalogRepository catalog(database.connection());
        const auto prov = providerNamed(catalog, p.value(QStringLiteral("provider")));
        if (!prov)
            return fail(QStringLiteral("no provider named '%1'; add it first with provider add")
                            .arg(p.value(QStringLiteral("provider"))));
        m.providerId = prov->id;
        m.name = p.value(QStringLiteral("name")).toStdString();
        m.label = p.value(QStringLiteral("label")).toStdString();
        // Adding a model again updates it: settings not given now are kept.
        QJsonObject settings;
        for (const auto& known : catalog.models())
            if (known.providerId == prov->id && known.name == m.name) {
                settings =
                    QJsonDocument::fromJson(QByteArray::fromStdString(known.settingsJson)).object();
                if (!p.isSet(QStringLiteral("price-in")) && !p.isSet(QStringLiteral("price-out"))) {
                    m.priceInPerMTok = known.priceInPerMTok;
                    m.priceOutPerMTok = known.priceOutPerMTok;
                }
                if (m.label.empty())
                    m.label = known.label;
            }
        QString bad;
        if (!applyRequestSettingsOptions(p, q(prov->kind), true, settings, &bad))
            return fail(bad, 2);
        if (cacheRead)
            settings.insert(QStringLiteral("price_cache_read"), *cacheRead);
        if (cacheWrite)
            settings.insert(QStringLiteral("price_cache_write"), *cacheWrite);
        m.settingsJson = QJsonDocument(settings).toJson(QJsonDocument::Compact).toStdString();
        catalog.upsertModel(m);
        out(QStringLiteral("model '%1' of provider '%2' registered\n")
                .arg(q(m.name), q(prov->name)));
        return 0;
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

} // namespace kb::cli
