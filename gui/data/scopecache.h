#pragma once
// The scopes (one run's attempts and leaderboard) read so far, and the background reads of the
// ones asked for. Going back to a run shown before costs nothing while its version (from the
// run summaries) is unchanged; a read that finishes after the database was switched is dropped.

#include "snapshot.h"

#include <QObject>
#include <QString>
#include <deque>
#include <map>
#include <memory>

namespace kb::gui {

class ScopeCache : public QObject {
    Q_OBJECT
public:
    explicit ScopeCache(QObject* parent = nullptr);
    ~ScopeCache() override;

    // A different database empties the cache and drops the reads in flight.
    void setDatabase(const QString& path);
    QString databasePath() const { return m_path; }

    // The cached scope when its version is current, else nullptr.
    ScopeDataPtr find(db::Id runId, const std::string& version) const;
    // Starts reading a scope unless that very version is already being read; ready() follows.
    void request(db::Id runId, const std::string& version);
    void insert(ScopeDataPtr data);
    std::vector<ScopeDataPtr> entries() const { return {m_entries.begin(), m_entries.end()}; }
    bool isLoading() const { return !m_pending.empty(); }
    bool isLoading(db::Id runId) const { return m_pending.count(runId) > 0; }

    // Entries kept, and attempts kept over all entries (the newest entry is always kept).
    static constexpr std::size_t kMaxEntries = 8;
    static constexpr std::size_t kMaxAttempts = 300000;

Q_SIGNALS:
    void ready(const kb::gui::ScopeDataPtr& data);
    void failed(kb::db::Id runId, const QString& message);

private:
    struct Alive;
    QString m_path;
    std::deque<ScopeDataPtr> m_entries;      // oldest first
    std::map<db::Id, std::string> m_pending; // run id -> version being read
    quint64 m_generation = 0;
    std::shared_ptr<Alive> m_alive;
};

} // namespace kb::gui

Q_DECLARE_METATYPE(kb::gui::ScopeDataPtr)
