#pragma once
// The evaluation slots of this host: one timing job per GPU at a time. On the CPU there is one
// slot (timing needs the whole machine). $KBSTUDIO_GPUS ("0,2") restricts the GPUs used.

#include <QList>
#include <QString>

namespace kb::engine {

class GpuPool {
public:
    // One slot (the CPU).
    GpuPool() = default;
    // device: "cpu" or "cuda". On CUDA the GPUs come from NVML; when NVML sees none the device is
    // still trusted with one GPU, index 0.
    explicit GpuPool(const QString& device);
    // A pool over explicit indices (tests, Slurm: one slot per job the cluster may run at once).
    static GpuPool withIndices(const QList<int>& indices);

    int size() const { return static_cast<int>(m_indices.size()); }
    int busy() const { return static_cast<int>(m_busy.size()); }
    bool hasFree() const { return busy() < size(); }
    // A free GPU index (lowest first) marked busy, or -1 when all are busy.
    int acquire();
    void release(int index);
    QList<int> indices() const { return m_indices; }

private:
    QList<int> m_indices{0};
    QList<int> m_busy;
};

} // namespace kb::engine
