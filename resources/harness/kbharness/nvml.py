"""GPU state from NVML, loaded with ctypes (no Python package, no link-time dependency).

The judge reads the state of the timing GPU just before and just after the candidate's timed
loop: SM and memory clocks, temperature, power, utilisation and the clock-throttle reasons.
A sample taken while the GPU was throttled explains a slow series; a throttle that appears
between "before" and "after" is worth a second look.  On a host without NVML every function
returns None and nothing else changes.
"""

import ctypes

_LIB = None
_TRIED = False

NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
NVML_TEMPERATURE_GPU = 0

# nvmlClocksEventReasons bits (nvml.h), named as NVML documents them.
THROTTLE_REASONS = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
]


class _Utilization(ctypes.Structure):
    _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]


def _lib():
    global _LIB, _TRIED
    if _TRIED:
        return _LIB
    _TRIED = True
    for name in ("libnvidia-ml.so.1", "libnvidia-ml.so"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        init = getattr(lib, "nvmlInit_v2", None) or getattr(lib, "nvmlInit", None)
        if init is None or init() != 0:
            return None
        _LIB = lib
        return _LIB
    return None


def decode_throttle_reasons(mask):
    """Names of the set reason bits (gpu_idle is normal between launches and is kept)."""
    names = [name for bit, name in THROTTLE_REASONS if mask & bit]
    known = 0
    for bit, _ in THROTTLE_REASONS:
        known |= bit
    if mask & ~known:
        names.append("other(0x%x)" % (mask & ~known))
    return names


def _handle(lib, index, pci_bus_id):
    handle = ctypes.c_void_p()
    if pci_bus_id:
        by_pci = getattr(lib, "nvmlDeviceGetHandleByPciBusId_v2", None)
        if by_pci is not None and by_pci(pci_bus_id.encode("ascii"), ctypes.byref(handle)) == 0:
            return handle
    by_index = getattr(lib, "nvmlDeviceGetHandleByIndex_v2", None) or getattr(lib, "nvmlDeviceGetHandleByIndex")
    if by_index(ctypes.c_uint(index), ctypes.byref(handle)) == 0:
        return handle
    return None


def pci_bus_id_of(torch_device_index):
    """The PCI bus id torch reports for a CUDA device (NVML's index order can differ)."""
    try:
        import torch

        props = torch.cuda.get_device_properties(torch_device_index)
        domain = getattr(props, "pci_domain_id", None)
        bus = getattr(props, "pci_bus_id", None)
        dev = getattr(props, "pci_device_id", None)
        if bus is None or dev is None:
            return None
        return "%08x:%02x:%02x.0" % (domain or 0, bus, dev)
    except Exception:
        return None


def sample(torch_device_index=0):
    """{sm_clock_mhz, mem_clock_mhz, temperature_c, power_w, utilization, throttle_reasons} or None."""
    lib = _lib()
    if lib is None:
        return None
    try:
        h = _handle(lib, torch_device_index, pci_bus_id_of(torch_device_index))
        if h is None:
            return None
        out = {}
        v = ctypes.c_uint()
        if lib.nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, ctypes.byref(v)) == 0:
            out["sm_clock_mhz"] = float(v.value)
        if lib.nvmlDeviceGetClockInfo(h, NVML_CLOCK_MEM, ctypes.byref(v)) == 0:
            out["mem_clock_mhz"] = float(v.value)
        if lib.nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU, ctypes.byref(v)) == 0:
            out["temperature_c"] = float(v.value)
        if lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(v)) == 0:
            out["power_w"] = v.value / 1000.0
        u = _Utilization()
        if lib.nvmlDeviceGetUtilizationRates(h, ctypes.byref(u)) == 0:
            out["utilization"] = float(u.gpu)
        mask = ctypes.c_ulonglong()
        reasons = getattr(lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            getattr(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
        if reasons is not None and reasons(h, ctypes.byref(mask)) == 0:
            out["throttle_reasons"] = decode_throttle_reasons(int(mask.value))
        return out or None
    except Exception:
        return None
