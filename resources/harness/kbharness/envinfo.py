"""Environment description recorded with every result."""

import os
import platform
import sys
from typing import Any, Dict, Optional

from . import HARNESS_VERSION


def torch_device_index(device: str) -> Optional[int]:
    """2 for "cuda:2", None for the CPU."""
    if not device.startswith("cuda"):
        return None
    _, _, index = device.partition(":")
    return int(index) if index.isdigit() else 0


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def nvidia_driver() -> Optional[str]:
    try:
        with open("/proc/driver/nvidia/version") as f:
            text = f.read()
        for token in text.split():
            parts = token.split(".")
            if len(parts) >= 2 and all(p.isdigit() for p in parts):
                return token
    except OSError:
        pass
    return None


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def describe(device: str, num_threads: int, allow_tf32: bool) -> Dict[str, Any]:
    import torch

    env = {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "torch": torch.__version__,
        "device": "cuda" if device.startswith("cuda") else "cpu",
        "device_name": cpu_name(),
        "device_capability": None,
        "cuda": None,
        "driver": None,
        "cpu": cpu_name(),
        "num_threads": num_threads,
        "allow_tf32": bool(allow_tf32),
        "float32_matmul_precision": (torch.get_float32_matmul_precision()
                                     if hasattr(torch, "get_float32_matmul_precision") else "highest"),
        "harness_version": HARNESS_VERSION,
        "platform": platform.platform(),
        "torch_compile_available": hasattr(torch, "compile"),
    }
    if device.startswith("cuda"):
        idx = torch.device(device).index or 0
        env["device_name"] = torch.cuda.get_device_name(idx)
        env["device_capability"] = "%d.%d" % torch.cuda.get_device_capability(idx)
        env["cuda"] = torch.version.cuda
        env["driver"] = nvidia_driver()
        env["gpu_index"] = idx
    return env
