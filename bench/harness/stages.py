#!/usr/bin/env python3
"""Where an evaluation's time goes: the harness's own stage times (the result's
``stage_seconds``), median over repeats, per candidate, with the fixed cost per candidate
(everything but the build and the measurement) in the last column.

    python3 bench/harness/stages.py [--device cpu] [--repeat 3] [--build-dir DIR]
        [--timing-seconds 1] [--no-library-check] [TASK.py:CANDIDATE.py ...]

Without pairs it runs the honest CPU fixtures the harness's tests use (a cached build after
the first repeat). Prints a table; exits non-zero when an evaluation gives no result.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = os.path.join(REPO, "resources", "harness")
STAGES = ("judge_start", "judge_setup", "static_check", "reference", "worker_start", "build_and_construct",
          "correctness", "timing", "teardown")
DEFAULT_PAIRS = [
    ("resources/suites/sample/level1/relu.py", "tests/harness/fixtures/fx_correct.py"),
    ("resources/suites/sample/level2/linear_bias_relu.py", "resources/demo/demo-a/l2-linear-bias-relu.py"),
    ("resources/suites/sample/level1/relu.py", "tests/adversarial/candidates/library/lib_honest.py"),
]


def evaluate(task, candidate, args, build_dir):
    req = {"schema": "kbstudio.eval-request/1", "task_path": os.path.join(REPO, task),
           "candidate_path": os.path.join(REPO, candidate), "device": args.device, "build_dir": build_dir,
           "seed": 20261205, "correctness_trials": 5, "timing_trials": 20,
           "max_timing_seconds": args.timing_seconds, "policy": {"allow_torch_ops": True},
           "library_check": not args.no_library_check}
    env = dict(os.environ, PYTHONPATH=HARNESS, PYTHONDONTWRITEBYTECODE="1")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                          cwd=HARNESS, env=env, input=json.dumps(req), capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        return None, wall
    return doc, wall


def fixed_cost(doc):
    """Seconds outside the build and the measurement: the process's start, the judge's set-up,
    the static check, the reference, the workers' start, loading the built library (the build
    stage less the build itself) and the teardown."""
    st = doc.get("stage_seconds", {})
    fixed = sum(st.get(s) or 0.0 for s in ("judge_start", "judge_setup", "static_check", "reference",
                                           "worker_start", "teardown"))
    return fixed + max(0.0, (st.get("build_and_construct") or 0.0) - (doc.get("build", {}).get("seconds") or 0.0))


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="*", help="TASK.py:CANDIDATE.py (paths from the repository root)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timing-seconds", type=float, default=1.0)
    ap.add_argument("--build-dir", default=None)
    ap.add_argument("--no-library-check", action="store_true", help="evaluate with the library check off")
    args = ap.parse_args()
    pairs = [tuple(p.split(":", 1)) for p in args.pairs] or DEFAULT_PAIRS
    build_dir = args.build_dir or tempfile.mkdtemp(prefix="kbstages-")
    head = ["candidate", "verdict"] + [s.replace("_", " ") for s in STAGES] + ["process wall", "fixed cost"]
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    failed = 0
    for task, candidate in pairs:
        runs = [evaluate(task, candidate, args, build_dir) for _ in range(args.repeat)]
        docs = [(d, w) for d, w in runs if d is not None]
        if not docs:
            failed += 1
            print("%s | no result" % os.path.basename(candidate))
            continue
        # the first repeat may build; the medians over repeats are of cached builds from two on
        cols = [median([d.get("stage_seconds", {}).get(s) for d, _ in docs]) for s in STAGES]
        fixed = [fixed_cost(d) for d, _ in docs]
        print(" | ".join([os.path.basename(candidate), docs[-1][0].get("verdict") or "?"] +
                         ["-" if c is None else "%.2f" % c for c in cols] +
                         ["%.2f" % median([w for _, w in docs]), "%.2f" % median(fixed)]), flush=True)
    print("\nstage seconds: medians over %d repeats (device %s, timing cap %.1f s, library check %s); fixed cost = "
          "process start, judge set-up, static check, reference, worker start, build stage minus the build itself, "
          "teardown" % (args.repeat, args.device, args.timing_seconds, "off" if args.no_library_check else "on"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
