#include "catalogwriter.h"

#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QCoreApplication>

namespace kb::gui {

namespace {

QString tr(const char* text, const char* disambiguation = nullptr, int n = -1) {
    return QCoreApplication::translate("kb::gui::CatalogWriter", text, disambiguation, n);
}

QString failure(const QString& what, const std::exception& e) {
    return tr("Could not %1: %2").arg(what, QString::fromStdString(e.what()));
}

} // namespace

QString saveProvider(const QString& databasePath, const db::ProviderRow& p, db::Id* id) {
    if (p.name.empty())
        return tr("A provider needs a name.");
    try {
        db::Database database(databasePath.toStdString());
        db::CatalogRepository catalog(database.connection());
        if (catalog.providerNameTaken(p.name, p.id))
            return tr("There is already a provider named '%1'.")
                .arg(QString::fromStdString(p.name));
        if (p.id == 0) {
            // The name is free, so this adds a provider.
            const db::Id added = catalog.upsertProvider(p);
            if (id)
                *id = added;
        } else {
            if (!catalog.updateProvider(p))
                return tr("Provider %1 is no longer in the database.").arg(p.id);
            if (id)
                *id = p.id;
        }
    } catch (const std::exception& e) {
        return failure(tr("save the provider"), e);
    }
    return {};
}

QString removeProvider(const QString& databasePath, db::Id providerId) {
    try {
        db::Database database(databasePath.toStdString());
        db::CatalogRepository catalog(database.connection());
        const int used = catalog.providerAttemptCount(providerId);
        if (used > 0)
            return tr("The provider's models have %n stored attempt(s); remove their runs first.",
                      nullptr, used);
        catalog.removeProvider(providerId);
    } catch (const std::exception& e) {
        return failure(tr("remove the provider"), e);
    }
    return {};
}

QString saveModel(const QString& databasePath, const db::ModelRow& m, db::Id* id) {
    if (m.name.empty())
        return tr("A model needs a name.");
    if ((m.priceInPerMTok && *m.priceInPerMTok < 0) ||
        (m.priceOutPerMTok && *m.priceOutPerMTok < 0))
        return tr("Prices cannot be negative.");
    try {
        db::Database database(databasePath.toStdString());
        db::CatalogRepository catalog(database.connection());
        if (catalog.modelNameTaken(m.providerId, m.name, m.id))
            return tr("The provider already has a model named '%1'.")
                .arg(QString::fromStdString(m.name));
        if (m.id == 0) {
            // The name is free for the provider, so this adds a model.
            const db::Id added = catalog.upsertModel(m);
            if (id)
                *id = added;
        } else {
            if (!catalog.updateModel(m))
                return tr("Model %1 is no longer in the database.").arg(m.id);
            if (id)
                *id = m.id;
        }
    } catch (const std::exception& e) {
        return failure(tr("save the model"), e);
    }
    return {};
}

QString removeModel(const QString& databasePath, db::Id modelId) {
    try {
        db::Database database(databasePath.toStdString());
        db::CatalogRepository catalog(database.connection());
        const int used = catalog.modelAttemptCount(modelId);
        if (used > 0)
            return tr("The model has %n stored attempt(s); remove its runs first.", nullptr, used);
        catalog.removeModel(modelId);
    } catch (const std::exception& e) {
        return failure(tr("remove the model"), e);
    }
    return {};
}

QString importSuiteFolder(const QString& databasePath, const QString& folder,
                          const QString& nameOverride, QString* summary) {
    try {
        const engine::SuiteDefinition suite = engine::SuiteLoader::loadFolder(folder, nameOverride);
        if (suite.tasks.isEmpty())
            return tr("No usable task in %1%2")
                .arg(folder,
                     suite.problems.isEmpty()
                         ? QString()
                         : QStringLiteral(": ") + suite.problems.join(QStringLiteral("; ")));
        db::Database database(databasePath.toStdString());
        const auto imported = engine::importSuite(database.connection(), suite);
        if (summary) {
            *summary =
                tr("Imported %n task(s) into '%1'.", nullptr, imported.tasks).arg(suite.name);
            if (!suite.problems.isEmpty())
                *summary += QLatin1Char(' ') +
                            tr("Skipped %n file(s): %1", nullptr, int(suite.problems.size()))
                                .arg(suite.problems.join(QStringLiteral("; ")));
        }
    } catch (const engine::Error& e) {
        return e.message();
    } catch (const std::exception& e) {
        return failure(tr("import the suite"), e);
    }
    return {};
}

} // namespace kb::gui
