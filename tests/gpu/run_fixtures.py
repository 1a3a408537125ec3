#!/usr/bin/env python3
"""Direct GPU check of the fixtures in tests/gpu/fixtures (no harness involved).

For every manifest entry this builds the candidate, constructs the reference
Model and the candidate ModelNew from the same init seed (on the CPU, then moved
to the GPU, as the harness does), runs 5 seeded input sets at the problem's
real sizes with TF32 off, compares with atol = rtol = 1e-4 and prints a verdict:
correct / incorrect / runtime_error / build_error. Each fixture runs in its own
process, so an illegal memory access in one cannot poison the next.

It is a quick sanity check for the fixtures themselves; the verdicts that
count come from `python3 -m kbharness evaluate` (see README.md).

Usage (from the repository root, on a machine with a CUDA GPU):
    python3 tests/gpu/run_fixtures.py                      # all fixtures
    python3 tests/gpu/run_fixtures.py l1_19_relu.py ...    # a subset (manifest "file" names)
    python3 tests/gpu/run_fixtures.py --kb-root DIR        # KernelBench problems live in DIR
                                                           # (DIR/level1/..., DIR/level2/...)
    python3 tests/gpu/run_fixtures.py --prebuild 8         # build extensions 8 at a time first
Exit status 0 when every verdict matches the manifest's "expect".
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
KB_PREFIX = "../shared/kernelbench/"


def problem_path(entry, kb_root):
    rel = entry["problem"]
    if kb_root and rel.startswith(KB_PREFIX):
        return os.path.join(os.path.abspath(kb_root), rel[len(KB_PREFIX):])
    return os.path.normpath(os.path.join(REPO, rel))


def load_module(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _clone(v):
    import torch

    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, (list, tuple)):
        return type(v)(_clone(x) for x in v)
    return v


def compare(ref, out, atol, rtol):
    """(passed, message) for a reference/candidate output pair."""
    import torch

    if isinstance(ref, (list, tuple)):
        if not isinstance(out, (list, tuple)) or len(out) != len(ref):
            return False, "output structure differs"
        for r, o in zip(ref, out):
            ok, msg = compare(r, o, atol, rtol)
            if not ok:
                return ok, msg
        return True, ""
    if not isinstance(out, torch.Tensor):
        return False, "output is %s, expected a tensor" % type(out).__name__
    if tuple(out.shape) != tuple(ref.shape):
        return False, "shape %s, expected %s" % (tuple(out.shape), tuple(ref.shape))
    if out.device != ref.device:
        return False, "output on %s, expected %s" % (out.device, ref.device)
    if ref.dtype in (torch.int64, torch.int32, torch.bool):
        bad = int((out.to(ref.dtype) != ref).sum().item())
        return bad == 0, "%d of %d elements differ" % (bad, ref.numel())
    o, r = out.float(), ref.float()
    bad = 0
    max_abs = 0.0
    flat_o, flat_r = o.reshape(-1), r.reshape(-1)
    step = 1 << 28
    for s in range(0, flat_r.numel(), step):          # chunks keep temporaries small
        oo, rr = flat_o[s:s + step], flat_r[s:s + step]
        diff = (oo - rr).abs()
        tol = atol + rtol * rr.abs()
        bad += int(((diff > tol) | (oo.isnan() != rr.isnan())).sum().item())
        if diff.numel():
            max_abs = max(max_abs, float(diff.nan_to_num(float("inf")).max().item()))
    if bad:
        return False, "%d of %d elements outside tolerance (max abs error %.3g)" % (bad, r.numel(), max_abs)
    return True, "max abs error %.3g" % max_abs


def run_one(fixture, problem, trials, atol, rtol, seed, timing):
    """Runs in a child process; prints one JSON line."""
    res = {"verdict": None, "message": ""}
    try:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
        dev = torch.device("cuda")
        task = load_module(problem, "kb_problem")
        t0 = time.time()
        try:
            cand = load_module(fixture, "kb_candidate")
        except Exception as e:  # load_inline failure
            res.update(verdict="build_error", message="%s: %s" % (type(e).__name__, str(e)[-2000:]))
            return res
        res["build_s"] = round(time.time() - t0, 1)
        torch.manual_seed(seed)
        init = list(task.get_init_inputs())
        torch.manual_seed(seed)
        ref_model = task.Model(*init).to(dev).eval()
        torch.manual_seed(seed)
        new_model = cand.ModelNew(*init).to(dev).eval()
        res["trials"] = []
        for i in range(trials):
            torch.manual_seed(seed * 1000 + i + 1)
            with torch.device(dev):
                inputs = list(task.get_inputs())
            inputs = [x.to(dev) if isinstance(x, torch.Tensor) else x for x in inputs]
            with torch.no_grad():
                ref = ref_model(*_clone(inputs))
                try:
                    out = new_model(*_clone(inputs))
                    torch.cuda.synchronize()
                except Exception as e:
                    res.update(verdict="runtime_error", message="trial %d: %s: %s" % (i, type(e).__name__, str(e)[:500]))
                    return res
            ok, msg = compare(ref, out, atol, rtol)
            res["trials"].append({"passed": ok, "message": msg})
            if timing and i == 0 and ok:
                res["ms"] = {"candidate": bench(new_model, inputs), "reference": bench(ref_model, inputs)}
            del ref, out, inputs
        failed = [t for t in res["trials"] if not t["passed"]]
        if failed:
            res.update(verdict="incorrect", message="%d of %d trials failed; first: %s" %
                       (len(failed), trials, failed[0]["message"]))
        else:
            res.update(verdict="correct", message=res["trials"][-1]["message"])
        return res
    except Exception as e:  # anything else (CUDA error during the reference, OOM, ...)
        res.update(verdict="runtime_error", message="%s: %s" % (type(e).__name__, str(e)[:500]))
        return res


def bench(model, inputs, reps=5):
    import torch

    with torch.no_grad():
        model(*inputs)
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            model(*inputs)
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
    times.sort()
    return round(times[len(times) // 2], 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help="manifest file names to run (default: all)")
    ap.add_argument("--kb-root", help="directory holding KernelBench level1/, level2/ (default: as in the manifest)")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per fixture")
    ap.add_argument("--prebuild", type=int, default=0, metavar="N",
                    help="first build all extensions, N processes at a time")
    ap.add_argument("--time", action="store_true", help="also time candidate and reference (median of 5)")
    ap.add_argument("--json", help="write all results to this file")
    ap.add_argument("--_one", nargs=2, metavar=("FIXTURE", "PROBLEM"), help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args._one:
        res = run_one(args._one[0], args._one[1], args.trials, args.atol, args.rtol, args.seed, args.time)
        print("@@RESULT@@" + json.dumps(res), flush=True)
        return 0

    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        entries = json.load(f)["fixtures"]
    if args.only:
        entries = [e for e in entries if e["file"] in args.only or os.path.basename(e["file"]) in args.only]

    if args.prebuild > 0:
        t0 = time.time()
        procs, pending = [], list(entries)
        while pending or procs:
            while pending and len(procs) < args.prebuild:
                e = pending.pop(0)
                code = ("import importlib.util as u,sys; s=u.spec_from_file_location('c', sys.argv[1]); "
                        "m=u.module_from_spec(s); s.loader.exec_module(m)")
                procs.append((e, subprocess.Popen([sys.executable, "-c", code, os.path.join(FIXTURES, e["file"])],
                                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
            time.sleep(0.5)
            for item in list(procs):
                e, p = item
                if p.poll() is not None:
                    procs.remove(item)
                    if p.returncode != 0:
                        print("prebuild %s failed:\n%s" % (e["file"], p.stderr.read().decode()[-3000:]), flush=True)
        print("prebuild done in %.0f s" % (time.time() - t0), flush=True)

    results, mismatches = [], 0
    for e in entries:
        fixture = os.path.join(FIXTURES, e["file"])
        problem = problem_path(e, args.kb_root)
        t0 = time.time()
        cmd = [sys.executable, os.path.abspath(__file__), "--_one", fixture, problem, "--trials", str(args.trials),
               "--atol", str(args.atol), "--rtol", str(args.rtol), "--seed", str(args.seed)]
        if args.time:
            cmd.append("--time")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            line = [l for l in p.stdout.splitlines() if l.startswith("@@RESULT@@")]
            if line:
                res = json.loads(line[-1][len("@@RESULT@@"):])
            else:
                res = {"verdict": "runtime_error",
                       "message": "process died (rc %s): %s" % (p.returncode, p.stderr.strip()[-500:])}
        except subprocess.TimeoutExpired:
            res = {"verdict": "timeout", "message": "over %.0f s" % args.timeout}
        res["file"], res["expect"], res["seconds"] = e["file"], e["expect"], round(time.time() - t0, 1)
        match = res["verdict"] == e["expect"]
        mismatches += not match
        results.append(res)
        print("%-4s %-40s expect=%-13s got=%-13s %5.1fs %s%s" % (
            "ok" if match else "FAIL", e["file"], e["expect"], res["verdict"], res["seconds"],
            res.get("message", "")[:160], (" ms=%s" % res["ms"]) if "ms" in res else ""), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results}, f, indent=2)
    print("%d of %d fixtures matched their expected verdict" % (len(results) - mismatches, len(results)))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
