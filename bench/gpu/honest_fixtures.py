#!/usr/bin/env python3
"""Honest hand-written CUDA kernels through the whole harness: verdicts, flags and symbols.

The fixtures of tests/gpu/fixtures (KernelBench level-1/2 problems solved with load_inline
CUDA kernels, plus deliberately wrong ones; --kb-root) and the demo provider's CUDA
candidates for the sample suite (resources/demo/cuda; --demo) are built in parallel with `kbharness build`
into one build cache, then evaluated one at a time with `kbharness evaluate` in CUDA mode.
For each it prints the verdict against the manifest's expectation, the speedup with its
interval, and every flag and suspicious or rejecting finding -- an honest kernel must come
out with none. Then it lists what the built extension libraries import from outside
themselves (`nm -D --undefined-only`), the evidence a symbol-level check of built libraries
would be judged by.

    python3 bench/gpu/honest_fixtures.py [--kb-root DIR] [--demo] --out fixtures.json [--jobs 6]
        [--trials 100] [--max-seconds 3] [--build-only] [FIXTURE.py ...]

Exit status 0 when every verdict matches and no honest fixture has a flag or finding.
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import subprocess
import sys
import time

from kbfixtures import FIXTURES, HARNESS, REPO, manifest, problem_path

sys.path.insert(0, HARNESS)
from kbharness import symcheck  # noqa: E402  (the harness's own reading of a library)


def demo_entries(names):
    """resources/demo/cuda: the demo provider's CUDA candidates for the sample suite; the
    manifest's correct_faster / correct_slower are both the verdict `correct`."""
    demo = os.path.join(REPO, "resources", "demo", "cuda")
    with open(os.path.join(demo, "manifest.json")) as f:
        doc = json.load(f)
    suite = os.path.join(REPO, "resources", "suites", doc["suite"])
    out = []
    for e in doc["candidates"]:
        if names and e["file"] not in names and os.path.basename(e["file"]) not in names:
            continue
        level, name = e["task"].split("-", 1)
        task = os.path.join(suite, "level" + level[1:], name.replace("-", "_") + ".py")
        expect = "correct" if e["expect"].startswith("correct") else e["expect"]
        out.append(dict(e, task=task, candidate=os.path.join(demo, e["file"]), expect=expect))
    return out


def entries(kb_root, names):
    out = []
    for e in manifest().values():
        if names and e["file"] not in names and os.path.basename(e["file"]) not in names:
            continue
        out.append(dict(e, task=problem_path(e, kb_root), candidate=os.path.join(FIXTURES, e["file"])))
    return out


def harness(command, req, timeout):
    env = dict(os.environ, PYTHONPATH=HARNESS, PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    try:
        proc = subprocess.run([sys.executable, "-m", "kbharness", command, "--request", "-", "--result", "-"],
                              cwd=HARNESS, env=env, input=json.dumps(req), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "bench-timeout", "message": "%s took over %d s" % (command, timeout)}, time.time() - t0
    try:
        return json.loads(proc.stdout), time.time() - t0
    except ValueError:
        return {"verdict": "bench-error", "message": (proc.stderr.strip().splitlines() or ["?"])[-1]}, time.time() - t0


def request(e, args):
    return {"schema": "kbstudio.eval-request/1", "task_path": e["task"], "candidate_path": e["candidate"],
            "device": "cuda", "gpu_index": 0, "build_dir": args.build_dir, "seed": 20261205,
            "correctness_trials": 5, "timing_trials": args.trials, "warmup": 3,
            "max_timing_seconds": args.max_seconds, "baseline": {"eager": True, "compile": False}}


def summary_of(doc, wall):
    timing = doc.get("timing") or {}
    cmp_ = (timing.get("comparison") or {}).get("eager") or {}
    return {"verdict": doc.get("verdict"), "message": (doc.get("message") or "")[:160], "wall_s": round(wall, 1),
            "speedup": (doc.get("speedup") or {}).get("eager"),
            "ci": [cmp_.get("ci_low"), cmp_.get("ci_high")], "noisy": cmp_.get("noisy"),
            "build_s": (doc.get("build") or {}).get("seconds"), "build_status": (doc.get("build") or {}).get("status"),
            "flags": [f.get("flag") for f in doc.get("flags") or []],
            "findings": ["%s: %s" % (f.get("rule"), (f.get("message") or "")[:80])
                         for f in doc.get("static_findings") or [] if f.get("severity") in ("suspicious", "reject")]}


def symbol_report(build_dir):
    """What every built library imports (demangled, as the library check reads it), each name
    with the number of libraries importing it and the finding the check would make of it."""
    libs = sorted(glob.glob(os.path.join(build_dir, "**", "*.so"), recursive=True))
    per_lib = {os.path.relpath(p, build_dir): sorted(set(symcheck.imported_names(p))) for p in libs}
    counts = collections.Counter(s for names in per_lib.values() for s in names)
    plain = {s: n for s, n in counts.items() if "::" not in s}
    print("== symbols: %d libraries; imported C names (libraries importing each; the check's finding)" % len(libs))
    for s in sorted(plain):
        hit = symcheck.classify(s, False, frozenset())
        print("    %-40s %3d  %s" % (s, plain[s], hit[0] if hit else "-"))
    namespaces = collections.Counter(s.split("::", 1)[0] for s in counts if "::" in s)
    print("    C++ names, by outer namespace: %s" % dict(namespaces.most_common()))
    return {"libraries": per_lib, "plain": plain, "namespaces": dict(namespaces)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fixtures", nargs="*")
    ap.add_argument("--kb-root", help="KernelBench problems (DIR/level1, DIR/level2) for tests/gpu/fixtures")
    ap.add_argument("--demo", action="store_true", help="also the demo provider's CUDA candidates")
    ap.add_argument("--out", required=True)
    ap.add_argument("--build-dir", default="/tmp/kbstudio-honest-fixtures")
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--max-seconds", type=float, default=3.0)
    ap.add_argument("--build-only", action="store_true")
    args = ap.parse_args()
    todo = (entries(args.kb_root, set(args.fixtures)) if args.kb_root else []) + \
        (demo_entries(set(args.fixtures)) if args.demo else [])
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        builds = list(pool.map(lambda e: harness("build", request(e, args), 600), todo))
    print("== built %d fixtures in %.1f s, %d at a time" % (len(todo), time.time() - t0, args.jobs), flush=True)
    rows, ok = [], True
    for e, (bdoc, bwall) in zip(todo, builds):
        row = {"fixture": e["file"], "expect": e["expect"], "build": summary_of(bdoc, bwall),
               "library_check": (bdoc.get("build") or {}).get("library_check")}
        if not args.build_only:
            doc, wall = harness("evaluate", request(e, args), 600)
            row["eval"] = summary_of(doc, wall)
            got = row["eval"]
            honest = e["expect"] == "correct"
            good = got["verdict"] == e["expect"] and not (honest and (got["flags"] or got["findings"]))
            ok = ok and good
            ci = got["ci"] if None not in got["ci"] else None
            print("%-34s %-9s %-10s %s %s %s flags=%s findings=%s %.1fs%s" % (
                e["file"][-34:], e["expect"], got["verdict"],
                "%.3fx" % got["speedup"] if got["speedup"] else "-",
                "[%.3f, %.3f]" % tuple(ci) if ci else "", "NOISY" if got["noisy"] else "",
                ",".join(got["flags"]) or "-", ";".join(got["findings"]) or "-", got["wall_s"],
                "" if good else "   <-- UNEXPECTED: " + got["message"]), flush=True)
        rows.append(row)
        with open(args.out, "w") as f:
            json.dump({"rows": rows}, f, indent=1)
    symbols = symbol_report(args.build_dir)
    with open(args.out, "w") as f:
        json.dump({"rows": rows, "symbols": symbols}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
