#pragma once
// Keeps the result pages on the run in scope. A scope that the snapshot lacks is taken from the
// cache while its version is unchanged, else read in the background (quick changes coalesced
// into one read) while the pages keep showing the previous one. The page in view follows at
// once and hidden pages when they are shown; a database read whole refreshes every page at once.

#include "data/scopecache.h"
#include "data/snapshot.h"

#include <QObject>
#include <functional>
#include <map>
#include <set>

class QTimer;

namespace kb::gui {

class ScopeRouter : public QObject {
    Q_OBJECT
public:
    using Update = std::function<void(const SnapshotPtr& snapshot, db::Id runId)>;

    explicit ScopeRouter(QObject* parent = nullptr);

    ScopeCache* cache() const { return m_cache; }
    // A page that shows the scope, under the caller's page number.
    void addPage(int page, Update update);
    // The page in view; refreshed now when it is behind the scope.
    void setCurrentPage(int page);
    // Shows runId (0 = every run) of this snapshot on the pages; applied() follows once they have
    // it, at once when the snapshot or the cache holds it. A null snapshot clears every page.
    void show(SnapshotPtr snapshot, db::Id runId);
    // The scope is being read (or about to be).
    bool isReading() const;

Q_SIGNALS:
    void reading(kb::db::Id runId);
    // snapshot: the one shown, with the scope's attempts joined.
    void applied(const kb::gui::SnapshotPtr& snapshot, kb::db::Id runId);
    void failed(kb::db::Id runId, const QString& message);

private:
    void onRead(const ScopeDataPtr& data);
    void refreshPages();
    void refresh(int page);

    ScopeCache* m_cache;
    QTimer* m_read;
    SnapshotPtr m_snapshot;
    db::Id m_runId = 0;
    int m_current = -1;
    std::map<int, Update> m_pages;
    std::set<int> m_stale;
};

} // namespace kb::gui
