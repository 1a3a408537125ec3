#pragma once
// Runs a job on the global thread pool and hands its result back on the GUI thread, but only
// while the owner still exists and no newer job was started since: a slow load that finishes
// after a quicker, later one must never overwrite the newer data.

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QThreadPool>
#include <memory>
#include <utility>

namespace kb::gui {

class JobTracker {
public:
    // The tracker must be a member of owner (so it lives exactly as long).
    explicit JobTracker(QObject* owner)
        : m_owner(owner) {}

    quint64 generation() const { return m_generation; }
    bool isRunning() const { return m_running; }
    // Makes the results of every job started so far stale.
    void invalidate() {
        ++m_generation;
        m_running = false;
    }

    // job() runs on a pool thread and must not touch the owner; done(result) runs on the GUI
    // thread, and only when the result is still current.
    template <typename Job, typename Done> void start(Job job, Done done) {
        using Result = decltype(job());
        struct Delivery {
            QPointer<QObject> owner;
            JobTracker* tracker;
            quint64 generation;
            Done done;
        };
        m_running = true;
        auto delivery = std::make_shared<Delivery>(
            Delivery{QPointer<QObject>(m_owner), this, ++m_generation, std::move(done)});
        QThreadPool::globalInstance()->start([delivery, job = std::move(job)]() mutable {
            auto result = std::make_shared<Result>(job());
            QCoreApplication* app = QCoreApplication::instance();
            if (!app)
                return;
            // Queued to the application object, which outlives every page; whether the
            // owner still exists is checked on the GUI thread, where it cannot go away
            // half-way through.
            QMetaObject::invokeMethod(
                app,
                [delivery, result]() {
                    if (!delivery->owner || delivery->tracker->m_generation != delivery->generation)
                        return;
                    delivery->tracker->m_running = false;
                    delivery->done(std::move(*result));
                },
                Qt::QueuedConnection);
        });
    }

private:
    QObject* m_owner;
    quint64 m_generation = 0;
    bool m_running = false;
};

} // namespace kb::gui
