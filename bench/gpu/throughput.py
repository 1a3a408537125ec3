#!/usr/bin/env python3
"""End-to-end time per candidate through `kbharness evaluate` (cold build included).

Each candidate (a KernelBench fixture from tests/gpu/fixtures, or a deliberately wrong one)
is evaluated the way the engine does it: request on standard input; static check and build in
the build pool (`kbharness build`, --jobs candidates at a time); then `kbharness evaluate` once
a GPU slot is free (--gpu-slots, default 1: the engine's one evaluation per GPU; the build is
a cache hit by then): 5 correctness trials on fresh seeded inputs with re-verification, 100
timed iterations of the candidate and of eager PyTorch with an L2 flush before each, every
defense on.  The build cache starts empty, so each candidate's first pass includes a cold
build; a second pass shows the cached case.  "End to end" is a candidate's own time (build
step + evaluation), without the time it waited for the GPU, which is listed beside it.

Usage (repository root, CUDA host):
    python3 bench/gpu/throughput.py --kb-root DIR [--jobs 3] [--gpu-slots 1] [--transport auto|bytes|cuda_ipc]
                                    [--files a.py,b.py] [--out DIR] [--passes cold,cached] [--no-warm]

--out keeps the build cache: a later run with --out DIR --passes cached --no-warm measures
another transport on the same, already built candidates.
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
import threading
import time

from kbfixtures import DEFAULT_KB_ROOT, FIXTURES, HARNESS, manifest, problem_path

DEFAULT_FILES = ("l2_12_gemm_mul_leakyrelu.py,l2_76_gemm_add_relu.py,l1_36_rmsnorm.py,"
                 "l1_19_relu.py,l1_23_softmax.py,l1_94_mseloss.py,wrong/l1_21_sigmoid_off_by_one.py")


GPU_SLOTS = None  # threading.Semaphore: evaluations running on the GPU at once


def _harness(command, req):
    env = dict(os.environ, PYTHONPATH=HARNESS)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "kbharness", command, "--request", "-", "--result", "-"],
                       input=json.dumps(req), capture_output=True, text=True, env=env, cwd=HARNESS)
    try:
        return json.loads(p.stdout), time.perf_counter() - t0, None
    except ValueError:
        return None, time.perf_counter() - t0, "no result (exit %d): %s" % (p.returncode, p.stderr[-1500:])


def evaluate(entry, args, cache, transport):
    """As the engine does it: the build step in the build pool (--jobs at a time), then the
    evaluation once a GPU slot is free (--gpu-slots, the engine's one timing job per GPU)."""
    req = {"schema": "kbstudio.eval-request/1", "task_path": problem_path(entry, args.kb_root), "candidate_path": os.path.join(FIXTURES, entry["file"]),
           "device": "cuda", "build_dir": cache, "correctness_trials": 5, "timing_trials": 100,
           "warmup": 3, "max_timing_seconds": 30.0, "seed": random.SystemRandom().randrange(1 << 52),
           "baseline": {"eager": True, "compile": False}, "tensor_transport": transport}
    built, build_wall, err = _harness("build", req)
    if built is None or built.get("verdict") != "built":
        res, eval_wall, waited = built, 0.0, 0.0
    else:
        t_wait = time.perf_counter()
        with GPU_SLOTS:
            waited = time.perf_counter() - t_wait
            res, eval_wall, err = _harness("evaluate", req)
    if res is None:
        return {"wall": build_wall + eval_wall, "verdict": "no result", "err": err}
    build = (built or {}).get("build") or {}
    timing = res.get("timing") or {}
    exts = build.get("extensions") or [{}]
    return {"wall": build_wall + eval_wall, "build_step_s": build_wall, "eval_s": eval_wall, "gpu_wait_s": waited,
            "verdict": res.get("verdict"), "message": (res.get("message") or "")[:160],
            "build_s": build.get("seconds"), "build_path": exts[0].get("path", build.get("status")),
            "speedup": (res.get("speedup") or {}).get("eager"), "transport": res.get("tensor_transport"),
            "input_sets": timing.get("input_sets"),
            "judge_gb": ((res.get("gpu_memory") or {}).get("judge_peak_reserved_bytes") or 0) / 1e9 or None,
            "worker_gb": ((res.get("gpu_memory") or {}).get("worker_peak_reserved_bytes") or 0) / 1e9 or None,
            "judge_stage_gb": {k: round(v / 1e9, 2) for k, v in
                               ((res.get("gpu_memory") or {}).get("judge_stage_peak_reserved_bytes") or {}).items()},
            "cand_ms": (timing.get("candidate") or {}).get("median_ms")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb-root", default=DEFAULT_KB_ROOT)
    ap.add_argument("--jobs", type=int, default=3, help="candidates in flight (build pool size)")
    ap.add_argument("--gpu-slots", type=int, default=1, help="evaluations on the GPU at once (engine: 1)")
    ap.add_argument("--transport", default="auto")
    ap.add_argument("--files", default=DEFAULT_FILES)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-warm", action="store_true")
    ap.add_argument("--passes", default="cold,cached")
    ap.add_argument("--json", default=None, help="also write every result to this file")
    args = ap.parse_args()
    by_file = manifest()
    entries = [by_file[n] for n in args.files.split(",")]
    work = args.out or tempfile.mkdtemp(prefix="kbthroughput-")
    cache = os.path.join(work, "cache")
    os.makedirs(cache, exist_ok=True)
    import torch

    global GPU_SLOTS
    GPU_SLOTS = threading.Semaphore(args.gpu_slots)

    print("# throughput: %d candidates, %d at a time, transport %s; torch %s, %s" % (
        len(entries), args.jobs, args.transport, torch.__version__, torch.cuda.get_device_name(0)), flush=True)
    if not args.no_warm:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kbharness", "warm", "--build-dir", cache], cwd=HARNESS,
                       capture_output=True, env=dict(os.environ, PYTHONPATH=HARNESS))
        print("warm (once per machine and environment): %.1f s" % (time.perf_counter() - t0), flush=True)
    record = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "jobs": args.jobs,
              "transport": args.transport, "passes": {}}
    for label in args.passes.split(","):
        t0 = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda e: evaluate(e, args, cache, args.transport), entries))
        total = time.perf_counter() - t0
        print("\n## %s build cache (%.1f s for all)\n" % (label, total))
        print("| candidate | verdict | end to end (s) | build step (s) | evaluation (s) | waited for the GPU (s) | "
              "build route | transport | input sets | GPU GB judge/worker | speedup vs eager |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for e, r in zip(entries, results):
            f = lambda k: "%.1f" % r[k] if r.get(k) is not None else "-"
            print("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s/%s | %s |" % (
                e["file"], r["verdict"], r["wall"], f("build_step_s"), f("eval_s"), f("gpu_wait_s"),
                r.get("build_path", "-"), r.get("transport", "-"), r.get("input_sets", "-"),
                f("judge_gb"), f("worker_gb"),
                "%.2fx" % r["speedup"] if r.get("speedup") else "-"))
            if r.get("err") or (r["verdict"] != e["expect"]):
                print("    expected %s: %s %s" % (e["expect"], r.get("message", ""), r.get("err", "")))
        print("\nmedian end to end (%s): %.1f s" % (label, statistics.median(r["wall"] for r in results)),
              flush=True)
        record["passes"][label] = {"total_s": total, "results": [dict(r, file=e["file"], expect=e["expect"])
                                                                 for e, r in zip(entries, results)]}
        if args.json:
            with open(args.json, "w") as f:
                json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
