#include "catalogloader.h"

#include "db/database.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace kb::gui {

CatalogLoadResult loadCatalogFile(const QString& path) {
    CatalogLoadResult result;
    if (!QFileInfo::exists(path)) {
        result.error =
            QCoreApplication::translate("kb::gui::CatalogLoader", "The database %1 does not exist.")
                .arg(QDir::toNativeSeparators(path));
        return result;
    }
    try {
        db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
        Catalog catalog = readCatalog(database.connection());
        catalog.databasePath = path;
        result.catalog = std::make_shared<const Catalog>(std::move(catalog));
    } catch (const std::exception& e) {
        result.error = QCoreApplication::translate("kb::gui::CatalogLoader",
                                                   "Cannot read the catalog of %1: %2")
                           .arg(QDir::toNativeSeparators(path), QString::fromStdString(e.what()));
    }
    return result;
}

CatalogLoader::CatalogLoader(QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<kb::gui::CatalogPtr>();
}

void CatalogLoader::load(const QString& path) {
    m_tracker.start([path]() { return loadCatalogFile(path); },
                    [this](CatalogLoadResult result) {
                        if (result.catalog)
                            Q_EMIT loaded(result.catalog);
                        else
                            Q_EMIT failed(result.error);
                    });
}

} // namespace kb::gui
