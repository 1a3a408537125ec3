#!/usr/bin/env python3
"""Identical code must measure 1.00x: each task's own reference, re-declared as ModelNew,
evaluated by the harness against itself (torch ops allowed), repeated.

    python3 bench/gpu/fairness.py --out fairness.json [--device cuda] [--repeat 2]
        [--harness resources/harness] [--compile] [--dobench] TASK.py ...

For every task and repeat it prints the speedup with its 95% interval, whether the harness
called it noisy, its flags and findings, the timing regime, the judge's evidence and the
evaluation's wall time. With --repeat >= 2 it checks that each repeat's speedup lies in the
other repeat's interval. With --dobench (CUDA, triton) it also times the reference with
triton.testing.do_bench in a fresh process and compares the harness's eager median with it.
--harness points at another copy of the harness (e.g. an older one) to compare costs.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

DOBENCH = r'''
import importlib.util, json, sys, torch, triton
spec = importlib.util.spec_from_file_location("task", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
torch.backends.cuda.matmul.allow_tf32 = False; torch.backends.cudnn.allow_tf32 = False
torch.manual_seed(1); model = m.Model(*m.get_init_inputs()).cuda().eval()
with torch.device("cuda"):
    torch.manual_seed(2); inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in m.get_inputs()]
with torch.no_grad():
    ms = triton.testing.do_bench(lambda: model(*inputs), warmup=100, rep=1000, return_mode="median")
print(json.dumps({"median_ms": ms}))
'''


def identical_candidate(task_path, folder):
    """The task's source with its Model renamed ModelNew: the same code on both sides."""
    import re

    with open(task_path) as f:
        src = f.read()
    path = os.path.join(folder, "identical_" + os.path.basename(task_path))
    with open(path, "w") as f:
        f.write(re.sub(r"\bModel\b", "ModelNew", src))
    return path


def evaluate(harness, task, candidate, args, build_dir):
    req = {"schema": "kbstudio.eval-request/1", "task_path": os.path.abspath(task),
           "candidate_path": candidate, "device": args.device, "gpu_index": 0, "build_dir": build_dir,
           "seed": 20261204, "correctness_trials": 5, "timing_trials": args.trials, "warmup": 3,
           "max_timing_seconds": args.max_seconds, "policy": {"allow_torch_ops": True},
           "baseline": {"eager": True, "compile": bool(args.compile), "compile_mode": "default"}}
    env = dict(os.environ, PYTHONPATH=harness, PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                          cwd=harness, env=env, input=json.dumps(req), capture_output=True, text=True,
                          timeout=1800)
    wall = time.time() - t0
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1], "wall_s": wall}
    timing = doc.get("timing") or {}
    cmp_ = (timing.get("comparison") or {}).get("eager") or {}
    return {"verdict": doc.get("verdict"), "message": doc.get("message"), "wall_s": round(wall, 2),
            "harness_seconds": doc.get("harness_seconds"),
            "speedup": (doc.get("speedup") or {}).get("eager"),
            "ci": [cmp_.get("ci_low"), cmp_.get("ci_high")], "noisy": cmp_.get("noisy"),
            "rounds": (timing.get("comparison") or {}).get("rounds"),
            "regime": (timing.get("comparison") or {}).get("regime"),
            "compile_speedup": (doc.get("speedup") or {}).get("compile"),
            "candidate_median_ms": (timing.get("candidate") or {}).get("median_ms"),
            "eager_median_ms": (timing.get("eager") or {}).get("median_ms"),
            "evidence": timing.get("evidence"),
            "flags": [f.get("flag") for f in doc.get("flags") or []],
            "findings": [f.get("rule") for f in doc.get("static_findings") or []
                         if f.get("severity") in ("suspicious", "reject")]}


def dobench(task):
    proc = subprocess.run([sys.executable, "-c", DOBENCH, os.path.abspath(task)], capture_output=True, text=True,
                          timeout=600)
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])["median_ms"]
    except (ValueError, IndexError, KeyError):
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--max-seconds", type=float, default=10.0)
    ap.add_argument("--harness", default=os.path.join(REPO, "resources", "harness"))
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--dobench", action="store_true")
    args = ap.parse_args()
    harness = os.path.abspath(args.harness)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kbfair-") as tmp:
        build_dir = os.path.join(tmp, "build")
        for task in args.tasks:
            cand = identical_candidate(task, tmp)
            runs = [evaluate(harness, task, cand, args, build_dir) for _ in range(args.repeat)]
            row = {"task": os.path.relpath(task, REPO) if task.startswith(REPO) else task, "runs": runs}
            if args.dobench and args.device == "cuda":
                row["dobench_ms"] = dobench(task)
            rows.append(row)
            print_row(row)
            with open(args.out, "w") as f:
                json.dump({"harness": harness, "rows": rows}, f, indent=1)
    summary(rows)


def fmt(r):
    if "error" in r:
        return "ERROR %s" % r["error"][:60]
    if r.get("verdict") != "correct":
        return "%s: %s" % (r.get("verdict"), (r.get("message") or "")[:80])
    ci = r.get("ci") or [None, None]
    ci_s = "[%.3f, %.3f]" % tuple(ci) if None not in ci else "[-]"
    extra = ",".join((r.get("flags") or []) + (r.get("findings") or [])) or "-"
    return "%.3fx %s %s rounds=%s %s %.1fs flags=%s" % (r["speedup"] or 0, ci_s, "NOISY" if r.get("noisy") else "ok",
                                                       r.get("rounds"), r.get("regime"), r["wall_s"], extra)


def print_row(row):
    print("%-48s" % row["task"][-48:], flush=True)
    for r in row["runs"]:
        print("    " + fmt(r), flush=True)
    if row.get("dobench_ms") and row["runs"] and row["runs"][0].get("eager_median_ms"):
        e = row["runs"][0]["eager_median_ms"]
        print("    do_bench %.4f ms, harness eager %.4f ms (%.3f)" % (row["dobench_ms"], e, e / row["dobench_ms"]),
              flush=True)


def summary(rows):
    within, total, in_band, flagged, n = 0, 0, 0, 0, 0
    for row in rows:
        runs = [r for r in row["runs"] if r.get("verdict") == "correct" and r.get("speedup")]
        for r in runs:
            n += 1
            in_band += 1 if abs(r["speedup"] - 1.0) <= 0.03 else 0
            flagged += 1 if (r.get("flags") or r.get("findings")) else 0
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                total += 1
                lo, hi = b.get("ci") or [None, None]
                if lo is not None and lo <= a["speedup"] <= hi:
                    within += 1
    print("== %d measurements: %d within 1.00 +- 0.03, %d with a flag or finding; repeats inside the other's "
          "interval: %d of %d" % (n, in_band, flagged, within, total))


if __name__ == "__main__":
    main()
