#!/usr/bin/env python3
"""End-to-end time per candidate through `kbharness evaluate` (cold build included).

Each candidate (a KernelBench fixture from tests/gpu/fixtures, or a deliberately wrong one)
is evaluated the way the engine does it: request on standard input, static check, build in
the sandboxed worker, 5 correctness trials on fresh seeded inputs with re-verification, 100
timed iterations of the candidate and of eager PyTorch with an L2 flush before each, every
defense on.  The build cache starts empty, so each candidate's first evaluation includes a
cold build; a second pass shows the cached case.  Candidates run --jobs at a time.

Usage (repository root, CUDA host):
    python3 bench/gpu/throughput.py --kb-root DIR [--jobs 3] [--transport auto|bytes|cuda_ipc]
                                    [--files a.py,b.py] [--out DIR]
"""

import argparse
import concurrent.futures
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from kbfixtures import DEFAULT_KB_ROOT, FIXTURES, HARNESS, manifest, problem_path

DEFAULT_FILES = ("l2_12_gemm_mul_leakyrelu.py,l2_76_gemm_add_relu.py,l1_36_rmsnorm.py,"
                 "l1_19_relu.py,l1_23_softmax.py,l1_94_mseloss.py,wrong/l1_21_sigmoid_off_by_one.py")


def evaluate(entry, args, cache, transport):
    req = {"schema": "kbstudio.eval-request/1", "task_path": problem_path(entry, args.kb_root), "candidate_path": os.path.join(FIXTURES, entry["file"]),
           "device": "cuda", "build_dir": cache, "correctness_trials": 5, "timing_trials": 100,
           "warmup": 3, "max_timing_seconds": 30.0, "seed": random.SystemRandom().randrange(1 << 52),
           "baseline": {"eager": True, "compile": False}, "tensor_transport": transport}
    env = dict(os.environ, PYTHONPATH=HARNESS)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                       input=json.dumps(req), capture_output=True, text=True, env=env, cwd=HARNESS)
    wall = time.perf_counter() - t0
    try:
        res = json.loads(p.stdout)
    except ValueError:
        return {"wall": wall, "verdict": "no result (exit %d)" % p.returncode, "err": p.stderr[-1500:]}
    build = res.get("build") or {}
    timing = res.get("timing") or {}
    exts = build.get("extensions") or [{}]
    return {"wall": wall, "verdict": res.get("verdict"), "message": (res.get("message") or "")[:160],
            "build_s": build.get("seconds"), "build_path": exts[0].get("path", build.get("status")),
            "speedup": (res.get("speedup") or {}).get("eager"), "transport": res.get("tensor_transport"),
            "harness_s": res.get("harness_seconds"),
            "cand_ms": (timing.get("candidate") or {}).get("median_ms")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb-root", default=DEFAULT_KB_ROOT)
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--transport", default="auto")
    ap.add_argument("--files", default=DEFAULT_FILES)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-warm", action="store_true")
    args = ap.parse_args()
    by_file = manifest()
    entries = [by_file[n] for n in args.files.split(",")]
    work = args.out or tempfile.mkdtemp(prefix="kbthroughput-")
    cache = os.path.join(work, "cache")
    os.makedirs(cache, exist_ok=True)
    import torch

    print("# throughput: %d candidates, %d at a time, transport %s; torch %s, %s" % (
        len(entries), args.jobs, args.transport, torch.__version__, torch.cuda.get_device_name(0)), flush=True)
    if not args.no_warm:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kbharness", "warm", "--build-dir", cache], cwd=HARNESS,
                       capture_output=True, env=dict(os.environ, PYTHONPATH=HARNESS))
        print("warm (once per machine and environment): %.1f s" % (time.perf_counter() - t0), flush=True)
    for label in ("cold", "cached"):
        t0 = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda e: evaluate(e, args, cache, args.transport), entries))
        total = time.perf_counter() - t0
        print("\n## %s build cache (%.1f s for all)\n" % (label, total))
        print("| candidate | verdict | end to end (s) | build (s) | build route | transport | speedup vs eager |")
        print("|---|---|---|---|---|---|---|")
        for e, r in zip(entries, results):
            print("| %s | %s | %.1f | %s | %s | %s | %s |" % (
                e["file"], r["verdict"], r["wall"], "%.1f" % r["build_s"] if r.get("build_s") is not None else "-",
                r.get("build_path", "-"), r.get("transport", "-"),
                "%.2fx" % r["speedup"] if r.get("speedup") else "-"))
            if r.get("err") or (r["verdict"] != e["expect"]):
                print("    expected %s: %s %s" % (e["expect"], r.get("message", ""), r.get("err", "")))
        print("\nmedian end to end (%s): %.1f s" % (label, statistics.median(r["wall"] for r in results)),
              flush=True)


if __name__ == "__main__":
    main()
