#pragma once
// How busy a pool of evaluation slots has been: slot-time spent busy over the slot-time there
// was, since the first evaluation began. Fed with the number of busy slots each time it changes.

#include <QElapsedTimer>
#include <QtGlobal>

namespace kb::engine {

class SlotMeter {
public:
    // Forgets everything: nothing has been measured.
    void reset() {
        m_clock.invalidate();
        m_busyNs = 0;
        m_markNs = 0;
    }
    // The clock starts with the first evaluation (later calls change nothing).
    void start();
    // Call just before the number of busy slots changes from `busySlots`.
    void note(int busySlots);
    // 0..1 with `busySlots` of `slots` busy now; 0 before the first evaluation.
    double busyFraction(int busySlots, int slots) const;

    // The same at an explicit time (nanoseconds since start), for tests.
    void noteAt(qint64 nowNs, int busySlots);
    double busyFractionAt(qint64 nowNs, int busySlots, int slots) const;

private:
    QElapsedTimer m_clock;
    qint64 m_busyNs = 0; // slot-time spent busy up to m_markNs
    qint64 m_markNs = 0;
};

} // namespace kb::engine
