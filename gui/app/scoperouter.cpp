#include "scoperouter.h"

#include <QTimer>

namespace kb::gui {

ScopeRouter::ScopeRouter(QObject* parent)
    : QObject(parent)
    , m_cache(new ScopeCache(this))
    , m_read(new QTimer(this)) {
    // Arrowing through the runs table asks for a scope per row; only the last one is read.
    m_read->setSingleShot(true);
    m_read->setInterval(40);
    connect(m_read, &QTimer::timeout, this, [this]() {
        if (m_snapshot && !m_snapshot->hasScope(m_runId))
            m_cache->request(m_runId, m_snapshot->scopeVersion(m_runId));
    });
    connect(m_cache, &ScopeCache::ready, this, &ScopeRouter::onRead);
    connect(m_cache, &ScopeCache::failed, this, [this](db::Id runId, const QString& message) {
        if (runId == m_runId)
            Q_EMIT failed(runId, message);
    });
}

void ScopeRouter::addPage(int page, Update update) {
    m_pages[page] = std::move(update);
}

void ScopeRouter::setCurrentPage(int page) {
    m_current = page;
    refresh(page);
}

bool ScopeRouter::isReading() const {
    return m_read->isActive() || m_cache->isLoading(m_runId);
}

void ScopeRouter::show(SnapshotPtr snapshot, db::Id runId) {
    m_snapshot = std::move(snapshot);
    m_runId = runId;
    if (!m_snapshot) {
        m_read->stop();
        refreshPages();
        return;
    }
    if (m_snapshot->hasRuns() && !m_snapshot->hasScope(runId)) {
        if (ScopeDataPtr cached = m_cache->find(runId, m_snapshot->scopeVersion(runId))) {
            m_snapshot = std::make_shared<const Snapshot>(m_snapshot->withScope(std::move(cached)));
        } else {
            m_read->start();
            Q_EMIT reading(runId);
            return;
        }
    }
    m_read->stop();
    refreshPages();
    Q_EMIT applied(m_snapshot, runId);
}

void ScopeRouter::onRead(const ScopeDataPtr& data) {
    if (!m_snapshot || data->runId != m_runId || data->version != m_snapshot->scopeVersion(m_runId))
        return; // another scope was chosen meanwhile, or the database changed (a reload follows)
    m_snapshot = std::make_shared<const Snapshot>(m_snapshot->withScope(data));
    refreshPages();
    Q_EMIT applied(m_snapshot, m_runId);
}

void ScopeRouter::refreshPages() {
    const bool everyPage = !m_snapshot || !m_snapshot->scope || m_snapshot->scope->everyRun;
    for (const auto& [page, update] : m_pages) {
        m_stale.insert(page);
        if (everyPage || page == m_current)
            refresh(page);
    }
}

void ScopeRouter::refresh(int page) {
    const auto it = m_pages.find(page);
    if (it == m_pages.end() || !m_stale.erase(page))
        return;
    it->second(m_snapshot, m_runId);
}

} // namespace kb::gui
