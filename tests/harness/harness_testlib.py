"""Shared helpers for the kbharness tests."""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
HARNESS_DIR = os.path.join(REPO, "resources", "harness")
SUITE_DIR = os.path.join(REPO, "resources", "suites", "sample")
DEMO_DIR = os.path.join(REPO, "resources", "demo")
FIXTURES = os.path.join(HERE, "fixtures")
RELU_TASK = os.path.join(SUITE_DIR, "level1", "relu.py")

if HARNESS_DIR not in sys.path:
    sys.path.insert(0, HARNESS_DIR)

# Builds are shared by every test in a run (and across runs): CTest points
# this at a folder under the build tree.
BUILD_DIR = os.environ.get("KBHARNESS_TEST_BUILD_DIR") or os.path.join(
    tempfile.gettempdir(), "kbharness-test-cache-%d" % os.getuid())

FAST = {"correctness_trials": 5, "timing_trials": 5, "warmup": 1, "max_timing_seconds": 1.0,
        "timing_input_sets": 2, "num_threads": 1}


def fixture(name):
    return os.path.join(FIXTURES, name)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = HARNESS_DIR
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_cli(args, timeout=600, stdin=None):
    """Run ``python -m kbharness ARGS``; returns CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "kbharness"] + list(args), cwd=HARNESS_DIR, env=_env(),
                          input=stdin, capture_output=True, text=True, timeout=timeout)


def make_request(candidate, task=RELU_TASK, **overrides):
    req = {"schema": "kbstudio.eval-request/1", "task_path": task, "candidate_path": candidate,
           "device": "cpu", "gpu_index": 0, "build_dir": BUILD_DIR, "seed": 987654321,
           "precision": "fp32", "atol": 1e-4, "rtol": 1e-4, "allow_tf32": False,
           "baseline": {"eager": True, "compile": False, "compile_mode": "default"},
           "policy": {"allow_torch_ops": False}}
    req.update(FAST)
    req.update(overrides)
    return req


def evaluate(candidate, task=RELU_TASK, command="evaluate", timeout=600, **overrides):
    """Evaluate a candidate; returns (exit code, result document or None, CompletedProcess)."""
    req = make_request(candidate, task, **overrides)
    with tempfile.TemporaryDirectory(prefix="kbharness-test-") as tmp:
        req_path = os.path.join(tmp, "request.json")
        res_path = os.path.join(tmp, "result.json")
        with open(req_path, "w") as f:
            json.dump(req, f)
        proc = run_cli([command, "--request", req_path, "--result", res_path], timeout=timeout)
        doc = None
        if os.path.exists(res_path):
            with open(res_path) as f:
                doc = json.load(f)
    return proc.returncode, doc, proc


def describe(doc, proc=None):
    """A compact failure description for assertion messages."""
    if doc is None:
        return "no result; stderr: %s" % (proc.stderr[-2000:] if proc else "")
    keep = {k: doc.get(k) for k in ("verdict", "message", "static_findings", "flags")}
    keep["build"] = {k: (doc.get("build") or {}).get(k) for k in ("status", "seconds", "errors")}
    keep["worker_log_tail"] = (doc.get("worker_log_tail") or "")[-800:]
    return json.dumps(keep, indent=1)


def schema_errors(doc, schema, path="$"):
    """A small JSON Schema subset validator (type, enum, const, required,
    properties, additionalProperties, items, anyOf) -- enough for result.schema.json."""
    errors = []
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        py = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
        ok = False
        for t in types:
            if t == "integer":
                ok = ok or (isinstance(doc, int) and not isinstance(doc, bool))
            elif t == "number":
                ok = ok or (isinstance(doc, (int, float)) and not isinstance(doc, bool))
            else:
                ok = ok or isinstance(doc, py[t])
        if not ok:
            return ["%s: expected %s, got %s" % (path, types, type(doc).__name__)]
    if "const" in schema and doc != schema["const"]:
        errors.append("%s: expected %r" % (path, schema["const"]))
    if "enum" in schema and doc not in schema["enum"]:
        errors.append("%s: %r not in %r" % (path, doc, schema["enum"]))
    if "anyOf" in schema:
        if not any(not schema_errors(doc, s, path) for s in schema["anyOf"]):
            errors.append("%s: matches none of anyOf" % path)
    if isinstance(doc, dict):
        for key in schema.get("required", []):
            if key not in doc:
                errors.append("%s: missing %s" % (path, key))
        for key, sub in schema.get("properties", {}).items():
            if key in doc:
                errors.extend(schema_errors(doc[key], sub, path + "." + key))
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for key in doc:
                if key not in schema.get("properties", {}):
                    errors.extend(schema_errors(doc[key], extra, path + "." + key))
    if isinstance(doc, list) and "items" in schema:
        for i, item in enumerate(doc):
            errors.extend(schema_errors(item, schema["items"], "%s[%d]" % (path, i)))
    return errors


def load_schema():
    with open(os.path.join(HARNESS_DIR, "result.schema.json")) as f:
        return json.load(f)
