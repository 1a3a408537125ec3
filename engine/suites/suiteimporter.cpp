#include "suiteimporter.h"

#include "core/hashing.h"

#include "db/catalogrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

ImportedSuite importSuite(db::Connection& conn, const SuiteDefinition& suite)
{
    db::Transaction tx(conn);
    db::CatalogRepository catalog(conn);
    ImportedSuite out;
    out.suiteId = catalog.upsertSuite(
        {0, suite.name.toStdString(), suite.description.toStdString(), suite.source.toStdString()});
    std::vector<db::TaskRow> rows;
    for (const auto& t : suite.tasks) {
        db::TaskRow row;
        row.key = t.key.toStdString();
        row.name = t.name.toStdString();
        row.level = t.level;
        row.source = t.source.toStdString();
        row.sourceHash = sha256Hex(t.source).toStdString();
        QJsonObject meta;
        meta.insert(QStringLiteral("ops"), QJsonArray::fromStringList(t.ops));
        meta.insert(QStringLiteral("file"), t.path);
        row.metadataJson = QJsonDocument(meta).toJson(QJsonDocument::Compact).toStdString();
        rows.push_back(std::move(row));
    }
    out.tasks = static_cast<int>(catalog.upsertTasks(out.suiteId, rows).size());
    tx.commit();
    return out;
}

} // namespace kb::engine
