#include "slotmeter.h"

namespace kb::engine {

void SlotMeter::start() {
    if (m_clock.isValid())
        return;
    m_clock.start();
    m_markNs = 0;
}

void SlotMeter::note(int busySlots) {
    if (m_clock.isValid())
        noteAt(m_clock.nsecsElapsed(), busySlots);
}

void SlotMeter::noteAt(qint64 nowNs, int busySlots) {
    m_busyNs += (nowNs - m_markNs) * busySlots;
    m_markNs = nowNs;
}

double SlotMeter::busyFraction(int busySlots, int slots) const {
    return m_clock.isValid() ? busyFractionAt(m_clock.nsecsElapsed(), busySlots, slots) : 0.0;
}

double SlotMeter::busyFractionAt(qint64 nowNs, int busySlots, int slots) const {
    const qint64 busy = m_busyNs + (nowNs - m_markNs) * busySlots;
    if (nowNs <= 0 || slots <= 0)
        return 0.0;
    return static_cast<double>(busy) / (static_cast<double>(nowNs) * slots);
}

} // namespace kb::engine
