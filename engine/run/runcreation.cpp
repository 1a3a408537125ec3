#include "runcreation.h"

#include "core/error.h"
#include "core/paths.h"
#include "db/catalogrepository.h"
#include "db/runrepository.h"
#include "generation/modelreference.h"
#include "generation/providerclients.h"
#include "providers/demoprovider.h"
#include "providers/requestoptions.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

namespace kb::engine {
namespace {
QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}
} // namespace

std::unique_ptr<db::Database> openRunDatabase(const QString& dbPath) {
    const QFileInfo info(dbPath);
    if (info.exists() && info.isDir())
        throw Error(QStringLiteral("'%1' is a folder, not a database file").arg(dbPath));
    if (!info.absoluteDir().exists())
        throw Error(QStringLiteral("cannot open database '%1': folder '%2' does not exist")
                        .arg(dbPath, info.absolutePath()));
    try {
        return std::make_unique<db::Database>(dbPath.toStdString());
    } catch (const db::Error& e) {
        throw Error(QString::fromUtf8(e.what()));
    }
}

QString workRootFor(const QString& dbPath) {
    const QFileInfo info(dbPath);
    return info.absolutePath() + QLatin1Char('/') + info.completeBaseName() +
           QStringLiteral(".work");
}

void installDemoCatalog(db::Connection& conn) {
    DemoProvider demo(demoDir());
    db::Transaction tx(conn);
    db::CatalogRepository catalog(conn);
    const db::Id providerId = catalog.upsertProvider(
        {0, "demo", "demo", "",
         R"({"note":"offline stored candidates, not a model","folder":"resources/demo"})"});
    for (const auto& m : demo.models()) {
        db::ModelRow row;
        row.providerId = providerId;
        row.name = m.id.toStdString();
        row.label = m.label.toStdString();
        row.priceInPerMTok = 0.0;
        row.priceOutPerMTok = 0.0;
        catalog.upsertModel(row);
    }
    importSuite(conn, SuiteLoader::loadFolder(sampleSuiteDir()));
    tx.commit();
}

db::Id createRunFromSpec(db::Connection& conn, const RunSpec& spec) {
    db::CatalogRepository catalog(conn);
    const auto suite = catalog.suiteByName(spec.suite.toStdString());
    if (!suite)
        throw Error(QStringLiteral("no suite named '%1' in the database").arg(spec.suite));
    std::vector<db::Id> modelIds;
    for (const auto& name : spec.models) {
        const db::ModelRow model = resolveModelReference(catalog, name); // throws Error
        if (spec.generation.temperature) {
            const QString bad =
                checkTemperature(toQ(model.providerKind), *spec.generation.temperature);
            if (!bad.isEmpty() && isChatProviderKind(toQ(model.providerKind)))
                throw Error(QStringLiteral("model %1: %2").arg(name, bad));
        }
        modelIds.push_back(model.id);
    }
    if (modelIds.empty())
        throw Error(QStringLiteral("a run needs at least one model"));
    std::vector<db::Id> taskIds;
    for (const auto& t : catalog.tasks(suite->id)) {
        if (!spec.tasks.isEmpty() && !spec.tasks.contains(toQ(t.key)))
            continue;
        if (!spec.levels.isEmpty() && !spec.levels.contains(t.level))
            continue;
        taskIds.push_back(t.id);
    }
    if (taskIds.empty())
        throw Error(
            QStringLiteral("the task selection matches no task of suite '%1'").arg(spec.suite));
    if (spec.samples < 1)
        throw Error(QStringLiteral("samples per task must be at least 1"));

    EvalSettings settings = spec.settings;
    while (settings.seed == 0)
        settings.seed = QRandomGenerator::system()->generate64();
    QJsonObject json = settings.toJson();
    json.insert(QStringLiteral("samples"), spec.samples);
    json.insert(QStringLiteral("generation"),
                resolveGenerationSettings(spec.mode, spec.generation, spec.suite).toJson());
    db::RunRow run;
    run.name = (spec.name.isEmpty()
                    ? spec.suite + QStringLiteral(" / ") + spec.models.join(QStringLiteral(", "))
                    : spec.name)
                   .toStdString();
    run.suiteId = suite->id;
    run.mode = spec.mode.toStdString();
    run.settingsJson = QJsonDocument(json).toJson(QJsonDocument::Compact).toStdString();
    return db::RunRepository(conn).createRun(run, modelIds, taskIds, spec.samples);
}

} // namespace kb::engine
