#!/usr/bin/env python3
"""The candidate's sandbox on a CUDA host: what works and what stays out of sight.

The allow-list sandbox (resources/harness/kbharness/sandbox.py, cuda_binds()) and the judge's
build service (buildservice.py) are tested in CI on a CPU only. On a GPU machine this script:

  1. prints the CUDA-only binds the harness adds (device nodes, /sys, driver folders, toolkit);
  2. evaluates an honest CUDA load_inline candidate (tests/harness/fixtures/fx_cuda_relu.py on
     the sample suite's ReLU) under bubblewrap with a fresh build cache: the build runs in the
     judge's build sandbox (nvcc), the candidate's worker imports it and runs on the GPU; the
     verdict must be `correct`; then again: the build must come from the cache (`cached`);
     then the build pool's step (`build`, no GPU in sight) of the same candidate;
  3. evaluates a probe candidate on the GPU that, at import, tries to read secrets placed for
     the check (a folder under /var/tmp, a key file in a temporary $HOME, a fake database) and
     a list of host paths, and reports what it could and could not read (and whether CUDA and
     the driver's files were usable inside); no secret may appear in the result;
  4. evaluates an fp16 and a bf16 request of a task with weights (tests/harness/fixtures/
     task_scale_shift.py) with an honest candidate: both must be `correct`, with the
     precision recorded as applied.

Usage (repository root, on the GPU host, the Python that has torch with CUDA):
    python3 bench/gpu/sandbox_check.py [--out DIR] [--gpu 0]

Prints one line per check and a table of the probe's reads; writes sandbox_check.json to --out.
Exit status 0 when every check passed, 1 otherwise. When the honest candidate fails, it is
evaluated again with the byte transport (no CUDA IPC) and with the host's whole /dev
(KBHARNESS_SANDBOX_HOST_DEV=1, the fallback before the allow-list's device nodes) to say which
part of the GPU sandbox is missing.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = os.path.join(REPO, "resources", "harness")
FIXTURES = os.path.join(REPO, "tests", "harness", "fixtures")
RELU_TASK = os.path.join(REPO, "resources", "suites", "sample", "level1", "relu.py")
sys.path.insert(0, HARNESS)

PROBE = r'''
import torch
import torch.nn as nn

_b = __builtins__
_get = (lambda k: _b[k]) if isinstance(_b, dict) else (lambda k: _b.__dict__[k])
_os = _get("__import__")("o" + "s")
_open = _get("op" + "en")
for p in %r:
    try:
        if _os.path.isdir(p):
            print("PROBE could-list %%s %%s" %% (p, sorted(_os.listdir(p))[:8]))
        else:
            with _open(p, "rb") as f:
                print("PROBE could-read %%s %%r" %% (p, f.read(60)))
    except OSError as e:
        print("PROBE could-not %%s %%s" %% (p, type(e).__name__))
print("PROBE cuda %%s %%s" %% (torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available()
                              else "-"))


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
'''


def run(command, req, env=None, timeout=1800):
    e = dict(os.environ)
    e["PYTHONPATH"] = HARNESS
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    e.update(env or {})
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "kbharness", command, "--request", "-", "--result", "-"],
                          cwd=HARNESS, env=e, input=json.dumps(req), capture_output=True, text=True, timeout=timeout)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = {"verdict": None, "message": "no result (exit %d): %s" % (proc.returncode, proc.stderr[-1500:])}
    doc["_seconds"] = round(time.time() - t0, 1)
    doc["_raw"] = proc.stdout + proc.stderr
    return doc


def request(candidate, task, build_dir, gpu, **extra):
    req = {"schema": "kbstudio.eval-request/1", "task_path": task, "candidate_path": candidate, "device": "cuda",
           "gpu_index": gpu, "build_dir": build_dir, "seed": 20261204, "sandbox": "bwrap",
           "correctness_trials": 3, "max_timing_seconds": 2.0}
    req.update(extra)
    return req


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="folder for sandbox_check.json")
    ap.add_argument("--gpu", type=int, default=0)
    args = ap.parse_args()
    from kbharness import evaluate, sandbox

    checks = []

    def check(name, ok, detail):
        checks.append({"check": name, "ok": bool(ok), "detail": detail})
        print("%-4s %-44s %s" % ("ok" if ok else "FAIL", name, detail), flush=True)

    ok, why = evaluate.sandbox_probe()
    check("bwrap starts a sandbox", ok, why)
    binds = sandbox.cuda_binds()
    print("CUDA-only binds:", " ".join(binds))
    print("toolkit roots:", sandbox.cuda_toolkit_roots())
    if not ok:
        return 1

    work = tempfile.mkdtemp(prefix="kbsandbox-check-")
    secret = "kbsecret-" + uuid.uuid4().hex
    outside = tempfile.mkdtemp(prefix="kbsandbox-outside-", dir="/var/tmp" if os.access("/var/tmp", os.W_OK)
                               else None)
    home = tempfile.mkdtemp(prefix="kbsandbox-home-", dir=outside)
    for path in (os.path.join(outside, "studio.kbdb"), os.path.join(home, "provider-keys")):
        with open(path, "w") as f:
            f.write(secret + "\n")
    root = os.path.join(work, "cache")
    build_dir = os.path.join(root, "model-1")
    try:
        # 2. honest CUDA candidate: cold build, cache hit, build pool
        cand = os.path.join(FIXTURES, "fx_cuda_relu.py")
        doc = run("evaluate", request(cand, RELU_TASK, build_dir, args.gpu, build_root=root))
        check("honest CUDA candidate, cold build", doc.get("verdict") == "correct" and doc.get("sandbox") == "bwrap",
              "%s (%s, build %s, %.0f s)" % (doc.get("verdict"), doc.get("message", "")[:160],
                                             (doc.get("build") or {}).get("status"), doc["_seconds"]))
        if doc.get("verdict") != "correct":
            print(doc.get("worker_log_tail", "")[-3000:])
            print(((doc.get("build") or {}).get("log") or "")[-3000:])
            # which part of the sandbox is missing: the byte transport (no CUDA IPC), then the
            # host's whole /dev (KBHARNESS_SANDBOX_HOST_DEV=1)
            for label, extra, env in (("tensor_transport bytes", {"tensor_transport": "bytes"}, None),
                                      ("host /dev", {}, {"KBHARNESS_SANDBOX_HOST_DEV": "1"})):
                d = run("evaluate", request(cand, RELU_TASK, build_dir, args.gpu, build_root=root, **extra), env=env)
                print("  diagnosis, with %s: %s (%s)" % (label, d.get("verdict"), d.get("message", "")[:200]))
        doc = run("evaluate", request(cand, RELU_TASK, build_dir, args.gpu, build_root=root))
        check("honest CUDA candidate, from the cache",
              doc.get("verdict") == "correct" and (doc.get("build") or {}).get("status") == "cached",
              "%s, build %s" % (doc.get("verdict"), (doc.get("build") or {}).get("status")))
        doc = run("build", request(cand, RELU_TASK, os.path.join(root, "model-2"), args.gpu, build_root=root))
        check("build pool step (no GPU in sight)", doc.get("verdict") == "built",
              "%s (%s)" % (doc.get("verdict"), doc.get("message", "")[:160]))

        # 3. what a candidate on the GPU can read
        cuda_home = sandbox.cuda_toolkit_roots()
        targets = [os.path.join(outside, "studio.kbdb"), os.path.join(home, "provider-keys"), outside, home,
                   "/etc/shadow", "/root", "/srv", "/opt", "/var/tmp", "/mnt", "/dev", "/dev/shm", "/sys/class",
                   "/proc/driver/nvidia/version", "/proc/driver/nvidia/gpus", "/run/nvidia-persistenced",
                   "/etc/nvidia", "/usr/local/cuda"] + [os.path.join(c, "bin") for c in cuda_home]
        probe = os.path.join(work, "probe.py")
        with open(probe, "w") as f:
            f.write(PROBE % (targets,))
        doc = run("evaluate", request(probe, RELU_TASK, os.path.join(root, "model-3"), args.gpu, build_root=root,
                                      policy={"allow_torch_ops": True}), env={"HOME": home})
        log = doc.get("worker_log_tail", "")
        print("what the candidate's worker could and could not read (inside the sandbox, on the GPU):")
        for line in log.splitlines():
            if line.startswith("PROBE "):
                print("   ", line[6:][:220])
        check("probe candidate ran on the GPU", doc.get("verdict") == "correct" and "PROBE cuda True" in log,
              "%s (%s)" % (doc.get("verdict"), doc.get("message", "")[:160]))
        check("no secret in the result", secret not in doc["_raw"], "secret %s" % (
            "absent" if secret not in doc["_raw"] else "LEAKED"))
        for p in (os.path.join(outside, "studio.kbdb"), os.path.join(home, "provider-keys"), "/etc/shadow"):
            check("hidden: %s" % p, "PROBE could-not %s" % p in log, "")

        # 4. reduced precision on the GPU
        task = os.path.join(FIXTURES, "task_scale_shift.py")
        honest = os.path.join(FIXTURES, "fx_scale_shift_honest.py")
        for prec in ("fp16", "bf16"):
            doc = run("evaluate", request(honest, task, os.path.join(root, "model-4"), args.gpu, build_root=root,
                                          precision=prec, policy={"allow_torch_ops": True}))
            check("%s evaluation of a task with weights" % prec,
                  doc.get("verdict") == "correct" and (doc.get("precision") or {}).get("requested") == prec,
                  "%s, precision %s" % (doc.get("verdict"), json.dumps(doc.get("precision"))))
    finally:
        shutil.rmtree(outside, ignore_errors=True)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "sandbox_check.json"), "w") as f:
                json.dump({"checks": checks, "cuda_binds": binds}, f, indent=1)
        shutil.rmtree(work, ignore_errors=True)
    failed = [c for c in checks if not c["ok"]]
    print("%d of %d checks passed" % (len(checks) - len(failed), len(checks)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
