#include "gpupool.h"

#include "gputelemetry.h"

#include <algorithm>

namespace kb::engine {

GpuPool::GpuPool(const QString& device) {
    if (device != QLatin1String("cuda"))
        return;
    m_indices.clear();
    const QString only = qEnvironmentVariable("KBSTUDIO_GPUS");
    if (!only.isEmpty()) {
        for (const auto& part : only.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const int i = part.trimmed().toInt(&ok);
            if (ok && i >= 0 && !m_indices.contains(i))
                m_indices.append(i);
        }
    } else {
        for (const auto& g : discoverGpus())
            m_indices.append(g.index);
    }
    if (m_indices.isEmpty())
        m_indices = {0};
}

GpuPool GpuPool::withIndices(const QList<int>& indices) {
    GpuPool p;
    p.m_indices = indices.isEmpty() ? QList<int>{0} : indices;
    return p;
}

int GpuPool::acquire() {
    for (int i : std::as_const(m_indices)) {
        if (!m_busy.contains(i)) {
            m_busy.append(i);
            return i;
        }
    }
    return -1;
}

void GpuPool::release(int index) {
    m_busy.removeOne(index);
}

} // namespace kb::engine
