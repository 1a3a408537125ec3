#include "preflight.h"

#include "db/catalogrepository.h"
#include "modelreference.h"
#include "providerclients.h"
#include "providers/redaction.h"
#include "turnrecord.h"

#include <QEventLoop>
#include <QTimer>

namespace kb::engine {
namespace {

ChatRequest preflightRequest(const QString& model, const QString& mode,
                             const GenerationSettings& g) {
    ChatRequest r;
    r.model = model;
    r.messages = {
        ChatMessage::user(QStringLiteral("This is a connection check. Reply with the word ok."))};
    r.maxTokens = g.maxTokens;
    r.temperature = g.temperature;
    r.stream = g.stream;
    if (mode == kModeAgent) {
        // Agents send tools: a model or server without tool calls is found out here.
        ToolDefinition t;
        t.name = QStringLiteral("list_files");
        t.description = QStringLiteral("List the files of the workspace.");
        t.parameters = QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                                   {QStringLiteral("properties"), QJsonObject()}};
        r.tools = {t};
    }
    return r;
}

} // namespace

PreflightResult runPreflight(db::Connection& conn, const QStringList& modelReferences,
                             const QString& mode, const GenerationSettings& settings,
                             const KeyStore* keys, int timeoutMs) {
    PreflightResult result;
    db::CatalogRepository catalog(conn);
    const auto models = catalog.models();
    const auto providers = catalog.providers();
    for (const QString& ref : modelReferences) {
        const db::ModelRow model = resolveModelReference(models, ref);
        if (!isChatProviderKind(QString::fromStdString(model.providerKind)) ||
            model.providerKind == "replay")
            continue;
        const QString name = qualifiedModelName(model);
        result.checked << name;
        std::optional<db::ProviderRow> provider;
        for (const auto& p : providers)
            if (p.id == model.providerId)
                provider = p;
        QString why;
        auto config = provider ? providerConfig(*provider, models, keys, &why) : std::nullopt;
        if (!config) {
            result.errors << QStringLiteral("%1: %2").arg(
                name, why.isEmpty() ? QStringLiteral("no provider") : why);
            continue;
        }
        QList<QByteArray> secrets;
        if (!config->apiKey.isEmpty())
            secrets << config->apiKey.toUtf8();
        config->transport.timeoutMs = std::min<qint64>(config->transport.timeoutMs, timeoutMs);
        ChatProvider client(std::move(*config));
        QEventLoop loop;
        QString error;
        const quint64 id =
            client.send(preflightRequest(QString::fromStdString(model.name), mode, settings));
        QObject::connect(&client, &ChatClient::finished, &loop,
                         [&](quint64 rid, const ChatResponse&) {
                             if (rid == id)
                                 loop.quit();
                         });
        QObject::connect(&client, &ChatClient::failed, &loop,
                         [&](quint64 rid, const ProviderError& e) {
                             if (rid != id)
                                 return;
                             error = describeProviderError(e);
                             loop.quit();
                         });
        QTimer::singleShot(timeoutMs, &loop, [&] {
            error = QStringLiteral("no answer within %1 s").arg(timeoutMs / 1000);
            client.cancel(id);
            loop.quit();
        });
        loop.exec();
        if (!error.isEmpty())
            result.errors << QStringLiteral("%1: %2").arg(name, redactSecrets(error, secrets));
    }
    return result;
}

} // namespace kb::engine
