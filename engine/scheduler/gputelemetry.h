#pragma once
// GPUs of this host through NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): no
// link-time dependency; a host without the library (or without GPUs) simply has none.

#include <QList>
#include <QMetaType>
#include <QString>
#include <optional>

namespace kb::engine {

struct GpuInfo {
    int index = 0;
    QString name;
    QString uuid;
    double memoryTotalMiB = 0;
};

// One reading of one GPU; a field the driver does not report stays empty.
struct GpuTelemetry {
    int index = 0;
    QString name;
    std::optional<double> utilizationPercent;
    std::optional<double> memoryUtilizationPercent;
    std::optional<double> smClockMhz;
    std::optional<double> memClockMhz;
    std::optional<double> temperatureC;
    std::optional<double> powerW;
    std::optional<double> memoryUsedMiB;
    quint64 throttleReasons = 0;
};

// The GPUs NVML sees (empty when NVML is missing or reports none). Cheap after the first call.
QList<GpuInfo> discoverGpus();
// A reading of every GPU, for the GUI to poll; empty on hosts without GPUs.
QList<GpuTelemetry> sampleGpus();
// Why discovery found nothing ("libnvidia-ml.so.1 not found", ...), empty when it found GPUs.
QString gpuDiscoveryNote();

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::GpuTelemetry)
