#pragma once
// Measures how long the GUI thread went without serving its event loop: a precise 2 ms timer
// notes the longest gap between two of its ticks since the last reset.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>

namespace kb::bench {

class StallMonitor : public QObject {
public:
    explicit StallMonitor(QObject* parent = nullptr)
        : QObject(parent) {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(2);
        connect(&m_timer, &QTimer::timeout, this, [this]() {
            const qint64 now = m_clock.nsecsElapsed();
            m_longestNs = std::max(m_longestNs, now - m_lastNs);
            m_lastNs = now;
        });
        m_clock.start();
        m_timer.start();
    }

    void reset() {
        m_lastNs = m_clock.nsecsElapsed();
        m_longestNs = 0;
    }
    // The longest gap so far, counting the one still open.
    double longestMs() const {
        return static_cast<double>(std::max(m_longestNs, m_clock.nsecsElapsed() - m_lastNs)) / 1e6;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0;
    qint64 m_longestNs = 0;
};

} // namespace kb::bench
