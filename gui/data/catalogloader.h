#pragma once
// Loads the catalog in the background, newest request wins (see JobTracker).

#include "catalog.h"
#include "jobtracker.h"

#include <QObject>

namespace kb::gui {

struct CatalogLoadResult {
    CatalogPtr catalog; // null on failure
    QString error;
};

// Opens the file read-only and reads the catalog; never throws.
CatalogLoadResult loadCatalogFile(const QString& path);

class CatalogLoader : public QObject {
    Q_OBJECT
public:
    explicit CatalogLoader(QObject* parent = nullptr);
    void load(const QString& path);
    bool isLoading() const { return m_tracker.isRunning(); }

Q_SIGNALS:
    void loaded(const kb::gui::CatalogPtr& catalog);
    void failed(const QString& message);

private:
    JobTracker m_tracker{this};
};

} // namespace kb::gui

Q_DECLARE_METATYPE(kb::gui::CatalogPtr)
