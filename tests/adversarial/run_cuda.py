#!/usr/bin/env python3
"""Runs the CUDA entries of the adversarial manifest through the harness on a
GPU machine and prints expected vs. got.  Exit status 1 on any mismatch.

    python3 tests/adversarial/run_cuda.py [--manifest PATH] [--gpu-index N] [--python PYTHON]
                                          [--transport auto|bytes|cuda_ipc]

Every entry with device "cuda" is evaluated with `python3 -m kbharness
evaluate --request - --result -` (the request on standard input, as the
engine sends it), with --transport as every request's tensor_transport unless the entry sets
its own.  The verdict must equal expect_verdict ("pass" for static
entries means: not rejected, i.e. any verdict but rejected/invalid), and
expect_rule must be among the findings with expect_severity (default
reject).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
HARNESS_DIR = os.path.join(REPO, "resources", "harness")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", default=os.path.join(HERE, "candidates", "manifest.json"))
    ap.add_argument("--gpu-index", type=int, default=0)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--build-dir", default=os.environ.get("KBHARNESS_TEST_BUILD_DIR") or os.path.join(
        tempfile.gettempdir(), "kbharness-adversarial-cuda-cache"))
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--save-dir", default=None, help="write each result document here")
    ap.add_argument("--transport", default=None, choices=("auto", "bytes", "cuda_ipc"),
                    help="tensor_transport of every request whose entry does not set one")
    args = ap.parse_args(argv)
    with open(args.manifest) as f:
        entries = [e for e in json.load(f)["candidates"] if e.get("device") == "cuda"]
    cand_dir = os.path.dirname(os.path.abspath(args.manifest))
    env = dict(os.environ)
    env["PYTHONPATH"] = HARNESS_DIR
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    rows = []
    failures = 0
    for e in entries:
        task = e["task"] if os.path.isabs(e["task"]) else os.path.join(REPO, e["task"])
        req = {"schema": "kbstudio.eval-request/1", "task_path": task,
               "candidate_path": os.path.join(cand_dir, e["file"]), "device": "cuda",
               "gpu_index": args.gpu_index, "build_dir": args.build_dir, "seed": 424242,
               "correctness_trials": 5, "timing_trials": 50, "warmup": 3, "max_timing_seconds": 5}
        if args.transport:
            req["tensor_transport"] = args.transport
        req.update(e.get("request") or {})
        try:
            proc = subprocess.run([args.python, "-m", "kbharness", "evaluate", "--request", "-", "--result", "-"],
                                  cwd=HARNESS_DIR, env=env, input=json.dumps(req), capture_output=True, text=True,
                                  timeout=args.timeout)
            doc = json.loads(proc.stdout) if proc.stdout.strip() else None
        except (subprocess.TimeoutExpired, ValueError) as ex:
            proc, doc = None, None
            err = str(ex)
        if doc is not None and args.save_dir:
            os.makedirs(args.save_dir, exist_ok=True)
            with open(os.path.join(args.save_dir, e["file"] + ".json"), "w") as f:
                json.dump(doc, f, indent=1)
        if doc is None or "verdict" not in doc:
            got, rules, ok = "error", set(), False
            msg = (proc.stderr.strip().splitlines() or ["?"])[-1] if proc is not None else err
        else:
            got = doc["verdict"]
            sev = e.get("expect_severity", "reject")
            rules = {f["rule"] for f in doc.get("static_findings") or [] if f.get("severity") == sev}
            want = e["expect_verdict"]
            ok = (got not in ("rejected", "invalid_candidate")) if want == "pass" else got == want
            if e.get("expect_rule"):
                ok = ok and e["expect_rule"] in rules
            if e.get("expect_message"):
                ok = ok and e["expect_message"] in doc.get("message", "")
            if e.get("expect_no_flags"):
                # an honest control: no flag and no suspicious or rejecting finding at all
                bad = [f["rule"] for f in doc.get("static_findings") or []
                       if f.get("severity") in ("suspicious", "reject")]
                bad += [f.get("flag") for f in doc.get("flags") or []]
                rules = set(bad)
                ok = ok and not bad
            if e.get("expect_max_speedup") is not None:
                ok = ok and ((doc.get("speedup") or {}).get("eager") or 0) <= e["expect_max_speedup"]
            msg = doc.get("message", "")
            speed = (doc.get("speedup") or {}).get("eager")
            if speed:
                msg = "%.2fx eager; %s" % (speed, msg)
        failures += 0 if ok else 1
        rows.append((e["file"], e["expect_verdict"], e.get("expect_rule") or "-", got,
                     ",".join(sorted(rules)) or "-", "ok" if ok else "MISMATCH", msg[:100]))
    widths = [max(len(str(r[i])) for r in rows + [("file", "expected", "rule", "got", "rules", "", "")])
              for i in range(6)]
    head = ("file", "expected", "rule", "got", "rules", "")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  message")
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r[:6], widths)) + "  " + r[6])
    print("%d of %d CUDA entries as expected" % (len(rows) - failures, len(rows)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
