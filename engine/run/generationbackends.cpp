#include "generationbackends.h"

#include "core/paths.h"
#include "db/catalogrepository.h"
#include "db/importrepository.h"
#include "db/runrepository.h"
#include "generation/providerclients.h"
#include "generation/sessionfactory.h"
#include "imports/importedsession.h"
#include "providers/demoprovider.h"
#include "providers/keystore.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

GenerationBackends::GenerationBackends(QObject* clientParent)
    : m_clientParent(clientParent) {}

GenerationBackends::~GenerationBackends() = default;

void GenerationBackends::setKeyStore(std::shared_ptr<KeyStore> keys) {
    m_keys = std::move(keys);
    m_chatClients.clear();
}

GenerationBackend GenerationBackends::backendFor(db::Connection& conn, const db::ModelRow& model) {
    GenerationBackend out;
    const QString kind = QString::fromStdString(model.providerKind);
    if (kind == QLatin1String("demo")) {
        auto it = m_providers.find(kind);
        if (it == m_providers.end())
            it = m_providers.insert(kind, std::make_shared<DemoProvider>(demoDir()));
        out.provider = it->get();
        return out;
    }
    if (!isChatProviderKind(kind)) {
        out.error = QStringLiteral("no provider of kind '%1' is available").arg(kind);
        return out;
    }
    const QString name = QString::fromStdString(model.providerName);
    auto it = m_chatClients.find(name);
    if (it == m_chatClients.end()) {
        db::CatalogRepository catalog(conn);
        std::optional<db::ProviderRow> row;
        for (const auto& p : catalog.providers())
            if (p.name == model.providerName)
                row = p;
        if (!row) {
            out.error = QStringLiteral("no provider named '%1'").arg(name);
            return out;
        }
        if (!m_keys)
            m_keys = defaultKeyStore();
        auto client = std::make_shared<ProviderClient>(
            makeProviderClient(*row, catalog.models(), m_keys.get(), m_clientParent, &out.error));
        if (!client->client)
            return out; // not cached: a fixed key store or transcript works on the next attempt
        for (const QByteArray& key : knownSecrets(catalog.providers(), m_keys.get()))
            if (!client->secrets.contains(key))
                client->secrets.append(key);
        it = m_chatClients.insert(name, client);
    }
    out.client = it->get()->client;
    out.secrets = it->get()->secrets;
    return out;
}

GenerationSettings storedGenerationSettings(db::Connection& conn, db::Id runId) {
    GenerationSettings g;
    if (const auto run = db::RunRepository(conn).run(runId)) {
        const QJsonObject o =
            QJsonDocument::fromJson(QByteArray::fromStdString(run->settingsJson)).object();
        g = GenerationSettings::fromJson(o.value(QStringLiteral("generation")).toObject());
        if (run->mode != kModeMultiTurn.toStdString())
            g.turns = 1;
    }
    return g;
}

GenerationContext attemptGenerationContext(const db::AttemptRow& attempt, const db::TaskRow& task,
                                           const db::ModelRow& model) {
    GenerationContext ctx;
    ctx.attemptId = attempt.id;
    ctx.model = QString::fromStdString(model.name);
    ctx.taskKey = QString::fromStdString(task.key);
    ctx.taskName = QString::fromStdString(task.name);
    ctx.level = task.level;
    ctx.taskSource = QString::fromStdString(task.source);
    ctx.sampleIndex = attempt.sampleIndex;
    ctx.mode = QString::fromStdString(attempt.mode);
    return ctx;
}

GenerationSession* makeAttemptSession(db::Connection& conn, const GenerationContext& context,
                                      bool imported, const GenerationBackend& backend,
                                      QObject* parent) {
    if (imported)
        return new ImportedSession(
            context, db::ImportRepository(conn).importedCandidate(context.attemptId), parent);
    return makeGenerationSession(context, backend.provider, backend.client, parent);
}

} // namespace kb::engine
