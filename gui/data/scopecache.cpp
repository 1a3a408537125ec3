#include "scopecache.h"

#include "db/database.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QThreadPool>

namespace kb::gui {

// Lets a read that outlives its cache find out, on the GUI thread, that nobody waits for it.
struct ScopeCache::Alive {
    ScopeCache* cache;
};

ScopeCache::ScopeCache(QObject* parent)
    : QObject(parent)
    , m_alive(std::make_shared<Alive>(Alive{this})) {
    qRegisterMetaType<kb::gui::ScopeDataPtr>();
}

ScopeCache::~ScopeCache() {
    m_alive->cache = nullptr;
}

void ScopeCache::setDatabase(const QString& path) {
    if (path == m_path)
        return;
    m_path = path;
    m_entries.clear();
    m_pending.clear();
    ++m_generation;
}

ScopeDataPtr ScopeCache::find(db::Id runId, const std::string& version) const {
    for (auto it = m_entries.rbegin(); it != m_entries.rend(); ++it) {
        if ((*it)->runId == runId && (*it)->version == version)
            return *it;
    }
    return nullptr;
}

void ScopeCache::insert(ScopeDataPtr data) {
    if (!data || data->everyRun)
        return;
    std::erase_if(m_entries, [&](const ScopeDataPtr& e) { return e->runId == data->runId; });
    m_entries.push_back(std::move(data));
    std::size_t attempts = 0;
    for (const auto& e : m_entries)
        attempts += e->attempts.size();
    while (m_entries.size() > 1 && (m_entries.size() > kMaxEntries || attempts > kMaxAttempts)) {
        attempts -= m_entries.front()->attempts.size();
        m_entries.pop_front();
    }
}

void ScopeCache::request(db::Id runId, const std::string& version) {
    if (const auto it = m_pending.find(runId); it != m_pending.end() && it->second == version)
        return;
    m_pending[runId] = version;
    const QString path = m_path;
    const quint64 generation = m_generation;
    const std::shared_ptr<Alive> alive = m_alive;
    QThreadPool::globalInstance()->start([path, runId, version, generation, alive]() {
        ScopeDataPtr data;
        QString error;
        try {
            db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
            data = readScope(database.connection(), runId, version);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QCoreApplication* app = QCoreApplication::instance();
        if (!app)
            return;
        // Delivered through the application object and checked on the GUI thread, where the
        // cache cannot go away half-way through.
        QMetaObject::invokeMethod(
            app,
            [alive, runId, version, generation, data, error]() {
                ScopeCache* self = alive->cache;
                if (!self || self->m_generation != generation)
                    return;
                const auto it = self->m_pending.find(runId);
                if (it == self->m_pending.end() || it->second != version)
                    return; // a newer version of this run is being read
                self->m_pending.erase(it);
                if (!data) {
                    Q_EMIT self->failed(runId, error);
                    return;
                }
                self->insert(data);
                Q_EMIT self->ready(data);
            },
            Qt::QueuedConnection);
    });
}

} // namespace kb::gui
