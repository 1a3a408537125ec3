"""Parsing and validation of the evaluation request."""

import json
import os

from . import REQUEST_SCHEMA


class RequestError(Exception):
    """The request is malformed; the harness exits with status 2."""


DEFAULTS = {
    "device": "cpu",
    "gpu_index": 0,
    "build_dir": None,
    "build_root": None,
    "correctness_trials": 5,
    "timing_trials": 20,
    "warmup": 3,
    "max_timing_seconds": 10.0,
    "precision": "fp32",
    "atol": None,
    "rtol": None,
    "allow_tf32": False,
    "baseline": {"eager": True, "compile": False, "compile_mode": "default"},
    "policy": {"allow_torch_ops": False, "allow_vendor_libraries": "none"},
    "num_threads": None,
    "timing_input_sets": 3,
    "build_timeout_seconds": 900.0,
    "trial_timeout_seconds": 120.0,
    "timing_timeout_seconds": None,
    "sandbox": "auto",
    "tensor_transport": "auto",
    "strict_check": "auto",
    "memory_limit_mb": "auto",
    "library_check": True,
}

# Address-space limit of the candidate's process in CPU mode (RLIMIT_AS).
# CUDA mode has no default limit: the driver reserves huge virtual ranges.
DEFAULT_CPU_MEMORY_LIMIT_MB = 8192

PRECISION_TOLERANCE = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2}
COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def _number(req, key, lo, hi, integer=False):
    v = req[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise RequestError("%s must be a number, got %r" % (key, v))
    if integer and int(v) != v:
        raise RequestError("%s must be an integer, got %r" % (key, v))
    if not (lo <= v <= hi):
        raise RequestError("%s must be between %s and %s, got %r" % (key, lo, hi, v))
    return int(v) if integer else float(v)


def parse(data):
    """Validate a decoded request (dict) and return it with defaults filled in."""
    if not isinstance(data, dict):
        raise RequestError("request must be a JSON object")
    if data.get("schema") != REQUEST_SCHEMA:
        raise RequestError("request schema must be %r, got %r" % (REQUEST_SCHEMA, data.get("schema")))
    req = {}
    for key, default in DEFAULTS.items():
        if isinstance(default, dict):
            merged = dict(default)
            value = data.get(key, {})
            if value is None:
                value = {}
            if not isinstance(value, dict):
                raise RequestError("%s must be an object" % key)
            merged.update(value)
            req[key] = merged
        else:
            req[key] = data.get(key, default)
    for key in ("task_path", "candidate_path"):
        v = data.get(key)
        if not isinstance(v, str) or not v:
            raise RequestError("%s is required" % key)
        if not os.path.isabs(v):
            raise RequestError("%s must be an absolute path, got %r" % (key, v))
        if key == "candidate_path" and os.path.isdir(v):
            # the workspace format: model_new.py + kernels/*.cu|*.cpp
            if not os.path.isfile(os.path.join(v, "model_new.py")):
                raise RequestError("candidate_path is a folder without model_new.py: %s" % v)
        elif not os.path.isfile(v):
            raise RequestError("%s does not exist: %s" % (key, v))
        req[key] = v
    if "seed" not in data:
        raise RequestError("seed is required")
    seed = data["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RequestError("seed must be an integer")
    req["seed"] = seed
    if req["device"] not in ("cpu", "cuda"):
        raise RequestError("device must be 'cpu' or 'cuda', got %r" % (req["device"],))
    req["gpu_index"] = _number(req, "gpu_index", 0, 1024, integer=True)
    req["correctness_trials"] = _number(req, "correctness_trials", 1, 10000, integer=True)
    req["timing_trials"] = _number(req, "timing_trials", 1, 1000000, integer=True)
    req["warmup"] = _number(req, "warmup", 0, 100000, integer=True)
    req["max_timing_seconds"] = _number(req, "max_timing_seconds", 0.001, 86400)
    req["timing_input_sets"] = _number(req, "timing_input_sets", 1, 64, integer=True)
    req["build_timeout_seconds"] = _number(req, "build_timeout_seconds", 1, 86400)
    req["trial_timeout_seconds"] = _number(req, "trial_timeout_seconds", 0.1, 86400)
    if req["timing_timeout_seconds"] is None:
        req["timing_timeout_seconds"] = 2 * req["max_timing_seconds"] + 60.0
    else:
        req["timing_timeout_seconds"] = _number(req, "timing_timeout_seconds", 0.1, 86400)
    if req["precision"] not in PRECISION_TOLERANCE:
        raise RequestError("precision must be one of %s" % ", ".join(sorted(PRECISION_TOLERANCE)))
    for key in ("atol", "rtol"):
        if req[key] is None:
            req[key] = PRECISION_TOLERANCE[req["precision"]]
        else:
            req[key] = _number(req, key, 0.0, 1e6)
    if not isinstance(req["allow_tf32"], bool):
        raise RequestError("allow_tf32 must be a boolean")
    if not isinstance(req["library_check"], bool):
        raise RequestError("library_check must be a boolean")
    if req["num_threads"] is not None:
        req["num_threads"] = _number(req, "num_threads", 1, 4096, integer=True)
    if req["baseline"].get("compile_mode") not in COMPILE_MODES:
        raise RequestError("baseline.compile_mode must be one of %s" % ", ".join(COMPILE_MODES))
    if req["tensor_transport"] not in ("auto", "bytes", "cuda_ipc"):
        raise RequestError("tensor_transport must be 'auto', 'bytes' or 'cuda_ipc', got %r" %
                           (req["tensor_transport"],))
    if req["sandbox"] not in ("auto", "bwrap", "none"):
        raise RequestError("sandbox must be 'auto', 'bwrap' or 'none', got %r" % (req["sandbox"],))
    if req["strict_check"] not in (True, False, "auto"):
        raise RequestError("strict_check must be true, false or 'auto', got %r" % (req["strict_check"],))
    if req["memory_limit_mb"] == "auto":
        req["memory_limit_mb"] = DEFAULT_CPU_MEMORY_LIMIT_MB if req["device"] == "cpu" else None
    elif req["memory_limit_mb"] is not None:
        req["memory_limit_mb"] = _number(req, "memory_limit_mb", 256, 1 << 24, integer=True)
    from . import static_check

    try:
        static_check.vendor_allowance(req["policy"].get("allow_vendor_libraries"))
    except ValueError as e:
        raise RequestError(str(e))
    req["policy"].setdefault("precision", req["precision"])
    if req["build_dir"] is not None and (not isinstance(req["build_dir"], str) or
                                         not os.path.isabs(req["build_dir"])):
        raise RequestError("build_dir must be an absolute path")
    root = req["build_root"]
    if root is not None:
        if not isinstance(root, str) or not os.path.isabs(root):
            raise RequestError("build_root must be an absolute path")
        if req["build_dir"] is None or not (os.path.abspath(req["build_dir"]) + os.sep).startswith(
                os.path.abspath(root).rstrip(os.sep) + os.sep) or os.path.abspath(req["build_dir"]) == \
                os.path.abspath(root):
            raise RequestError("build_dir must be a folder inside build_root")
    return req


def load(path):
    """Read and parse a request file ('-' reads standard input)."""
    try:
        if path == "-":
            import sys

            text = sys.stdin.read()
        else:
            with open(path, "r", encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise RequestError("cannot read request %s: %s" % (path, e.strerror or e))
    try:
        data = json.loads(text)
    except ValueError as e:
        raise RequestError("request is not valid JSON: %s" % e)
    return parse(data)
