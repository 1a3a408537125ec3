#include "gputelemetry.h"

#include <QMutex>
#include <QMutexLocker>
#include <dlfcn.h>

namespace kb::engine {
namespace {

// The few NVML entry points used, declared here so no NVML header is needed to build.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlUtilization_t {
    unsigned int gpu;
    unsigned int memory;
};
struct nvmlMemory_t {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
constexpr nvmlReturn_t kSuccess = 0;
constexpr unsigned int kClockSm = 1;
constexpr unsigned int kClockMem = 2;
constexpr unsigned int kTemperatureGpu = 0;

struct Nvml {
    void* lib = nullptr;
    bool ok = false;
    QString note;
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*count)(unsigned int*) = nullptr;
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
    nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned int) = nullptr;
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
    nvmlReturn_t (*clock)(nvmlDevice_t, unsigned int, unsigned int*) = nullptr;
    nvmlReturn_t (*temperature)(nvmlDevice_t, unsigned int, unsigned int*) = nullptr;
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*throttle)(nvmlDevice_t, unsigned long long*) = nullptr;

    template <typename F> bool resolve(F& fn, const char* symbol) {
        fn = reinterpret_cast<F>(::dlsym(lib, symbol));
        return fn != nullptr;
    }

    Nvml() {
        lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            note = QStringLiteral("libnvidia-ml.so.1 not found: no GPUs (CPU mode)");
            return;
        }
        const bool required =
            resolve(init, "nvmlInit_v2") && resolve(count, "nvmlDeviceGetCount_v2") &&
            resolve(handle, "nvmlDeviceGetHandleByIndex_v2") && resolve(name, "nvmlDeviceGetName");
        resolve(uuid, "nvmlDeviceGetUUID");
        resolve(memory, "nvmlDeviceGetMemoryInfo");
        resolve(utilization, "nvmlDeviceGetUtilizationRates");
        resolve(clock, "nvmlDeviceGetClockInfo");
        resolve(temperature, "nvmlDeviceGetTemperature");
        resolve(power, "nvmlDeviceGetPowerUsage");
        resolve(throttle, "nvmlDeviceGetCurrentClocksThrottleReasons");
        if (!required) {
            note = QStringLiteral("libnvidia-ml.so.1 lacks the NVML functions needed");
            return;
        }
        const nvmlReturn_t rc = init();
        if (rc != kSuccess) {
            note = QStringLiteral("NVML did not initialise (code %1): no GPUs").arg(rc);
            return;
        }
        ok = true;
    }
};

Nvml& nvml() {
    static Nvml instance;
    return instance;
}

QMutex& nvmlMutex() {
    static QMutex m;
    return m;
}

} // namespace

QList<GpuInfo> discoverGpus() {
    QMutexLocker lock(&nvmlMutex());
    static std::optional<QList<GpuInfo>> cached;
    if (cached)
        return *cached;
    QList<GpuInfo> out;
    Nvml& n = nvml();
    unsigned int count = 0;
    if (n.ok && n.count(&count) == kSuccess) {
        for (unsigned int i = 0; i < count; ++i) {
            nvmlDevice_t dev = nullptr;
            if (n.handle(i, &dev) != kSuccess)
                continue;
            GpuInfo g;
            g.index = static_cast<int>(i);
            char buf[96] = {};
            if (n.name(dev, buf, sizeof buf) == kSuccess)
                g.name = QString::fromUtf8(buf);
            if (n.uuid && n.uuid(dev, buf, sizeof buf) == kSuccess)
                g.uuid = QString::fromUtf8(buf);
            nvmlMemory_t mem{};
            if (n.memory && n.memory(dev, &mem) == kSuccess)
                g.memoryTotalMiB = static_cast<double>(mem.total) / (1024.0 * 1024.0);
            out.append(g);
        }
        if (out.isEmpty())
            n.note = QStringLiteral("NVML reports no GPUs (CPU mode)");
    }
    cached = out;
    return out;
}

QList<GpuTelemetry> sampleGpus() {
    const QList<GpuInfo> gpus = discoverGpus();
    QMutexLocker lock(&nvmlMutex());
    Nvml& n = nvml();
    QList<GpuTelemetry> out;
    for (const auto& g : gpus) {
        nvmlDevice_t dev = nullptr;
        if (n.handle(static_cast<unsigned int>(g.index), &dev) != kSuccess)
            continue;
        GpuTelemetry t;
        t.index = g.index;
        t.name = g.name;
        nvmlUtilization_t u{};
        if (n.utilization && n.utilization(dev, &u) == kSuccess) {
            t.utilizationPercent = u.gpu;
            t.memoryUtilizationPercent = u.memory;
        }
        unsigned int v = 0;
        if (n.clock && n.clock(dev, kClockSm, &v) == kSuccess)
            t.smClockMhz = v;
        if (n.clock && n.clock(dev, kClockMem, &v) == kSuccess)
            t.memClockMhz = v;
        if (n.temperature && n.temperature(dev, kTemperatureGpu, &v) == kSuccess)
            t.temperatureC = v;
        if (n.power && n.power(dev, &v) == kSuccess)
            t.powerW = v / 1000.0;
        nvmlMemory_t mem{};
        if (n.memory && n.memory(dev, &mem) == kSuccess)
            t.memoryUsedMiB = static_cast<double>(mem.used) / (1024.0 * 1024.0);
        unsigned long long reasons = 0;
        if (n.throttle && n.throttle(dev, &reasons) == kSuccess)
            t.throttleReasons = reasons;
        out.append(t);
    }
    return out;
}

QString gpuDiscoveryNote() {
    discoverGpus();
    QMutexLocker lock(&nvmlMutex());
    return nvml().note;
}

} // namespace kb::engine
