#include "catalogwriter.h"

#include "core/error.h"
#include "db/database.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QCoreApplication>

namespace kb::gui {

namespace {

QString tr(const char* text, const char* disambiguation = nullptr, int n = -1) {
    return QCoreApplication::translate("kb::gui::CatalogWriter", text, disambiguation, n);
}

int attemptsOf(db::Connection& conn, const char* sql, db::Id id) {
    db::Statement s(conn, sql);
    s.bind(1, id);
    s.step();
    return s.int32(0);
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
        auto& conn = database.connection();
        {
            db::Statement dup(conn, "SELECT count(*) FROM providers WHERE name = ? AND id != ?");
            dup.bind(1, p.name).bind(2, p.id);
            dup.step();
            if (dup.int32(0) > 0)
                return tr("There is already a provider named '%1'.")
                    .arg(QString::fromStdString(p.name));
        }
        if (p.id == 0) {
            db::Statement s(
                conn,
                "INSERT INTO providers(name, kind, base_url, settings_json) VALUES (?,?,?,?)");
            s.bind(1, p.name).bind(2, p.kind).bind(3, p.baseUrl).bind(4, p.settingsJson).exec();
            if (id)
                *id = conn.lastInsertId();
        } else {
            db::Statement s(conn, "UPDATE providers SET name = ?, kind = ?, base_url = ?, "
                                  "settings_json = ? WHERE id = ?");
            s.bind(1, p.name)
                .bind(2, p.kind)
                .bind(3, p.baseUrl)
                .bind(4, p.settingsJson)
                .bind(5, p.id)
                .exec();
            if (conn.changes() == 0)
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
        auto& conn = database.connection();
        const int used = attemptsOf(conn,
                                    "SELECT count(*) FROM attempts a JOIN models m ON m.id = "
                                    "a.model_id WHERE m.provider_id = ?",
                                    providerId);
        if (used > 0)
            return tr("The provider's models have %n stored attempt(s); remove their runs first.",
                      nullptr, used);
        db::Transaction tx(conn);
        db::Statement models(conn, "DELETE FROM models WHERE provider_id = ?");
        models.bind(1, providerId).exec();
        db::Statement s(conn, "DELETE FROM providers WHERE id = ?");
        s.bind(1, providerId).exec();
        tx.commit();
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
        auto& conn = database.connection();
        {
            db::Statement dup(
                conn, "SELECT count(*) FROM models WHERE provider_id = ? AND name = ? AND id != ?");
            dup.bind(1, m.providerId).bind(2, m.name).bind(3, m.id);
            dup.step();
            if (dup.int32(0) > 0)
                return tr("The provider already has a model named '%1'.")
                    .arg(QString::fromStdString(m.name));
        }
        if (m.id == 0) {
            db::Statement s(conn, "INSERT INTO models(provider_id, name, label, price_in_per_mtok, "
                                  "price_out_per_mtok, settings_json) VALUES (?,?,?,?,?,?)");
            s.bind(1, m.providerId)
                .bind(2, m.name)
                .bind(3, m.label)
                .bind(4, m.priceInPerMTok)
                .bind(5, m.priceOutPerMTok)
                .bind(6, m.settingsJson)
                .exec();
            if (id)
                *id = conn.lastInsertId();
        } else {
            db::Statement s(
                conn,
                "UPDATE models SET provider_id = ?, name = ?, label = ?, price_in_per_mtok = ?, "
                "price_out_per_mtok = ?, settings_json = ? WHERE id = ?");
            s.bind(1, m.providerId)
                .bind(2, m.name)
                .bind(3, m.label)
                .bind(4, m.priceInPerMTok)
                .bind(5, m.priceOutPerMTok)
                .bind(6, m.settingsJson)
                .bind(7, m.id)
                .exec();
            if (conn.changes() == 0)
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
        auto& conn = database.connection();
        const int used =
            attemptsOf(conn, "SELECT count(*) FROM attempts WHERE model_id = ?", modelId);
        if (used > 0)
            return tr("The model has %n stored attempt(s); remove its runs first.", nullptr, used);
        db::Statement s(conn, "DELETE FROM models WHERE id = ?");
        s.bind(1, modelId).exec();
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
