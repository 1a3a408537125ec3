#include "suiteimporter.h"

#include "core/hashing.h"
#include "db/catalogrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

ImportedSuite importSuite(db::Connection& conn, const SuiteDefinition& suite) {
    db::Transaction tx(conn, db::Transaction::Lock::Immediate);
    db::CatalogRepository catalog(conn);
    ImportedSuite out;
    const db::SuiteRow suiteRow{0, suite.name.toStdString(), suite.description.toStdString(),
                                suite.source.toStdString()};
    if (suite.builtin) {
        const db::SuiteRow stored = catalog.upsertBuiltinSuite(suiteRow);
        out.suiteId = stored.id;
        out.name = QString::fromStdString(stored.name);
    } else {
        out.suiteId = catalog.upsertSuite(suiteRow);
        out.name = suite.name;
    }
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
    const db::TaskImport stored = catalog.importTasks(out.suiteId, rows);
    out.tasks = static_cast<int>(stored.ids.size());
    out.added = stored.added;
    out.updated = stored.updated;
    out.versioned = stored.versioned;
    tx.commit();
    return out;
}

} // namespace kb::engine
