"""Helpers for the adversarial tests: the manifest and evaluation runs."""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
HARNESS_DIR = os.path.join(REPO, "resources", "harness")
CANDIDATES = os.path.join(HERE, "candidates")
SECRET_SEED = 918273645546372819

if HARNESS_DIR not in sys.path:
    sys.path.insert(0, HARNESS_DIR)

BUILD_DIR = os.environ.get("KBHARNESS_TEST_BUILD_DIR") or os.path.join(
    tempfile.gettempdir(), "kbharness-test-cache-%d" % os.getuid())

FAST = {"correctness_trials": 5, "timing_trials": 5, "warmup": 1, "max_timing_seconds": 1.0,
        "timing_input_sets": 2, "num_threads": 1}


def manifest():
    with open(os.path.join(CANDIDATES, "manifest.json")) as f:
        return json.load(f)["candidates"]


def entry(name):
    for e in manifest():
        if e["file"] == name:
            return e
    raise KeyError(name)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = HARNESS_DIR
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def make_request(e, **overrides):
    req = {"schema": "kbstudio.eval-request/1", "task_path": os.path.join(REPO, e["task"]),
           "candidate_path": os.path.join(CANDIDATES, e["file"]), "device": e.get("device", "cpu"),
           "build_dir": BUILD_DIR, "seed": SECRET_SEED}
    req.update(FAST)
    req.update(e.get("request") or {})
    req.update(overrides)
    return req


def evaluate(e, timeout=600, extra_env=None, **overrides):
    """Evaluate a manifest entry the way the engine does: the request on
    standard input, the result written to stdout (--result -).
    Returns (exit code, result document or None, CompletedProcess)."""
    req = make_request(e, **overrides)
    env = _env()
    env.update(extra_env or {})
    proc = subprocess.run([sys.executable, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                          cwd=HARNESS_DIR, env=env, input=json.dumps(req), capture_output=True, text=True,
                          timeout=timeout)
    doc = None
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        pass
    return proc.returncode, doc, proc


def rules(doc, severity=None):
    return {f["rule"] for f in (doc.get("static_findings") or [])
            if severity is None or f["severity"] == severity}


def describe(doc, proc=None):
    if doc is None:
        return "no result; stdout: %s; stderr: %s" % (proc.stdout[-1500:] if proc else "",
                                                      proc.stderr[-1500:] if proc else "")
    keep = {k: doc.get(k) for k in ("verdict", "message", "static_findings", "flags", "sandbox")}
    keep["worker_log_tail"] = (doc.get("worker_log_tail") or "")[-1200:]
    return json.dumps(keep, indent=1)
