#!/usr/bin/env python3
"""The reference side of the throughput comparison: KernelBench's evaluation procedure.

KernelBench's harness is not part of this project; this script re-does the steps its
single-candidate evaluation takes (as documented in its repository: `run_and_check`), so that
both procedures run on the same candidates, the same machine and in the same session:

  1. a fresh process per candidate; the candidate file is executed, so its `load_inline`
     builds with torch's defaults into the build directory (fresh: a cold build);
  2. reference `Model` and `ModelNew` made from `get_init_inputs()` under one seed, on the GPU;
  3. 5 correctness trials, each with inputs from the task's own `get_inputs()` (generated on
     the CPU, as the task file writes them) moved to the GPU, compared with allclose at 1e-2;
  4. the candidate timed over 100 trials with CUDA events after 3 warm-up calls;
  5. the eager reference timed the same way on fresh inputs.

It has none of the defenses (no static check, no separate judge process, no L2 flush, no
re-verification) and is only the yardstick for `throughput.py`: same candidates, --jobs at
a time, a cold pass with empty build directories and a cached pass reusing them.

Usage (repository root, CUDA host):
    python3 bench/gpu/kbstyle.py --kb-root DIR [--jobs 3] [--files a.py,b.py] [--passes cold,cached]
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from kbfixtures import DEFAULT_KB_ROOT, FIXTURES, manifest, problem_path
from throughput import DEFAULT_FILES

CHILD = r'''
import importlib.util, json, os, statistics, sys, time
import torch

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

def to_gpu(xs):
    return [x.cuda() if isinstance(x, torch.Tensor) else x for x in xs]

def time_cuda(model, inputs, trials=100, warmup=3):
    with torch.no_grad():
        for _ in range(warmup):
            model(*inputs)
        torch.cuda.synchronize()
        out = []
        for _ in range(trials):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            model(*inputs)
            b.record()
            torch.cuda.synchronize()
            out.append(a.elapsed_time(b))
    return out

t0 = time.perf_counter()
steps = {}
task = load(os.environ["KB_TASK"], "kb_task")
torch.manual_seed(42)
init = to_gpu(task.get_init_inputs())
ref = task.Model(*init).cuda()
t = time.perf_counter()
cand_mod = load(os.environ["KB_CAND"], "kb_candidate")   # builds with load_inline here
steps["build_s"] = time.perf_counter() - t
torch.manual_seed(42)
cand = cand_mod.ModelNew(*init).cuda()
t = time.perf_counter()
ok, max_diff = True, 0.0
with torch.no_grad():
    for trial in range(5):
        torch.manual_seed(1000 + trial)
        inputs = to_gpu(task.get_inputs())
        want, got = ref(*inputs), cand(*inputs)
        torch.cuda.synchronize()
        if got.shape != want.shape:
            ok = False
            break
        max_diff = max(max_diff, (got - want).abs().max().item())
        if not torch.allclose(got, want, atol=1e-2, rtol=1e-2):
            ok = False
        del inputs, want, got
steps["correctness_s"] = time.perf_counter() - t
res = {"correct": ok, "max_abs_diff": max_diff}
if ok:
    t = time.perf_counter()
    torch.manual_seed(7)
    inputs = to_gpu(task.get_inputs())
    res["cand_ms"] = statistics.median(time_cuda(cand, inputs))
    del inputs
    torch.manual_seed(8)
    inputs = to_gpu(task.get_inputs())
    res["eager_ms"] = statistics.median(time_cuda(ref, inputs))
    steps["timing_s"] = time.perf_counter() - t
res.update(steps)
res["process_s"] = time.perf_counter() - t0
print("KBSTYLE " + json.dumps(res), flush=True)
'''


def evaluate(entry, args, build_root):
    name = os.path.splitext(os.path.basename(entry["file"]))[0]
    env = dict(os.environ, KB_TASK=problem_path(entry, args.kb_root), KB_CAND=os.path.join(FIXTURES, entry["file"]),
               TORCH_EXTENSIONS_DIR=os.path.join(build_root, name))
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env,
                           timeout=args.timeout)
        out, code = p.stdout, p.returncode
        err = p.stderr
    except subprocess.TimeoutExpired:
        out, code, err = "", -1, "timed out after %d s" % args.timeout
    wall = time.perf_counter() - t0
    for line in out.splitlines():
        if line.startswith("KBSTYLE "):
            r = json.loads(line[len("KBSTYLE "):])
            r["wall"] = wall
            r["verdict"] = "correct" if r["correct"] else "incorrect"
            return r
    return {"wall": wall, "verdict": "error (exit %d)" % code, "err": err.strip().splitlines()[-1:] if err else ""}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb-root", default=DEFAULT_KB_ROOT)
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--files", default=DEFAULT_FILES)
    ap.add_argument("--passes", default="cold,cached")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    by_file = manifest()
    entries = [by_file[n] for n in args.files.split(",")]
    build_root = tempfile.mkdtemp(prefix="kbstyle-")
    import torch
    print("# KernelBench's procedure (re-done here): %d candidates, %d at a time; torch %s, %s" % (
        len(entries), args.jobs, torch.__version__, torch.cuda.get_device_name(0)), flush=True)
    record = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "jobs": args.jobs, "passes": {}}
    for label in args.passes.split(","):
        t0 = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda e: evaluate(e, args, build_root), entries))
        total = time.perf_counter() - t0
        print("\n## %s build (%.1f s for all)\n" % (label, total))
        print("| candidate | verdict | end to end (s) | build (s) | correctness (s) | timing (s) | speedup vs eager |")
        print("|---|---|---|---|---|---|---|")
        for e, r in zip(entries, results):
            f = lambda k: "%.1f" % r[k] if r.get(k) is not None else "-"
            sp = "%.2fx" % (r["eager_ms"] / r["cand_ms"]) if r.get("cand_ms") else "-"
            print("| %s | %s | %.1f | %s | %s | %s | %s |" % (e["file"], r["verdict"], r["wall"], f("build_s"),
                                                             f("correctness_s"), f("timing_s"), sp))
            if r.get("err"):
                print("    %s" % r["err"])
        print("\nmedian end to end (%s): %.1f s" % (label, statistics.median(r["wall"] for r in results)), flush=True)
        record["passes"][label] = {"total_s": total, "results": [dict(r, file=e["file"], expect=e["expect"])
                                                                 for e, r in zip(entries, results)]}
        if args.json:
            with open(args.json, "w") as f:
                json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
