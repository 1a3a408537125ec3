#!/usr/bin/env python3
"""Cold CUDA builds of KernelBench candidates: torch's default load_inline path vs ours.

For every correct fixture in tests/gpu/fixtures (KernelBench level 1-2 candidates written
here), in one run on one machine:

  default  import the candidate with plain torch (fresh TORCH_EXTENSIONS_DIR): a cold build
  ours     import it through kbharness's build cache (fresh cache: a cold build on the
           fast route of kbharness/fastbuild.py; the environment's precompiled header is
           prepared first by `kbharness warm`, timed separately)
  hit      import it again through the same cache (a cache hit)

and checks that both builds compute bit-identical outputs on the problem's own inputs
(seeded, generated on the GPU). Both variants run --jobs candidates at a time.

Usage (repository root, CUDA host):
    python3 bench/gpu/buildbench.py --kb-root DIR [--jobs 4] [--count N] [--out DIR]
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from kbfixtures import DEFAULT_KB_ROOT, FIXTURES, HARNESS, manifest, problem_path

CHILD = r'''
import importlib.util, json, os, sys, time
sys.path.insert(0, os.environ["KB_HARNESS"])
import torch
mode = os.environ["KB_MODE"]
if mode != "default":
    from kbharness import buildcache
    buildcache.install(os.environ["KB_CACHE"], "cuda")
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m
t0 = time.perf_counter()
cand = load(os.environ["KB_FIXTURE"], "candidate")
build_s = time.perf_counter() - t0
info = {"build_s": build_s}
if mode != "default":
    recs = buildcache.RECORDS
    info["status"] = ",".join(r["status"] for r in recs)
    info["path"] = ",".join(r.get("path", "") for r in recs)
    info["harness_s"] = sum(r["seconds"] for r in recs)
    if os.environ.get("KB_DIAG"):
        for r in recs:
            d = r.get("directory", "")
            try:
                edges = [l.split("\t") for l in open(os.path.join(d, ".ninja_log")) if not l.startswith("#")]
                info["edges"] = {e[3]: (int(e[1]) - int(e[0])) / 1000 for e in edges}
            except OSError:
                pass
            info["diag"] = [l for l in r["log"].splitlines() if "pch" in l.lower() or "nvccsplit" in l][:10]
    if any(r["status"] == "failed" for r in recs):
        info["log"] = recs[-1]["log"][-3000:]
prob = load(os.environ["KB_PROBLEM"], "problem")
torch.manual_seed(1234)
init = prob.get_init_inputs() if hasattr(prob, "get_init_inputs") else []
model = cand.ModelNew(*init).cuda().eval()
with torch.no_grad(), torch.device("cuda"):
    torch.manual_seed(99)
    inputs = prob.get_inputs()
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in inputs]
    out = model(*inputs)
    torch.cuda.synchronize()
    outs = out if isinstance(out, (list, tuple)) else [out]
    digest = []
    for o in outs:
        flat = o.detach().contiguous().view(-1)
        words = flat.view(torch.int32) if flat.numel() * flat.element_size() % 4 == 0 else flat.view(torch.uint8)
        acc = torch.zeros((), dtype=torch.int64, device="cuda")
        step = 1 << 26
        for s in range(0, words.numel(), step):
            w = words[s:s + step].to(torch.int64)
            idx = torch.arange(s, s + w.numel(), device="cuda", dtype=torch.int64)
            acc += ((w & 0xFFFFFFFF) * ((idx * 2654435761 + 97) % 1000003)).sum()
        digest.append([list(o.shape), str(o.dtype), int(acc.item())])
info["digest"] = digest
print("RESULT " + json.dumps(info))
'''


def run_child(mode, fixture, problem, cache, ext_dir):
    env = dict(os.environ)
    env.update({"KB_MODE": mode, "KB_FIXTURE": fixture, "KB_PROBLEM": problem, "KB_CACHE": cache,
                "KB_HARNESS": HARNESS, "TORCH_EXTENSIONS_DIR": ext_dir})
    env.pop("PYTORCH_NVCC", None)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            info = json.loads(line[7:])
            info["wall_s"] = wall
            return info
    return {"error": (p.stderr or p.stdout)[-3000:], "wall_s": wall}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb-root", default=DEFAULT_KB_ROOT)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--skip-default", action="store_true", help="only our route (a quick check)")
    args = ap.parse_args()
    work = args.out or tempfile.mkdtemp(prefix="kbbuildbench-")
    os.makedirs(work, exist_ok=True)
    entries = [e for e in manifest().values() if e["expect"] == "correct"]
    if args.count:
        entries = entries[:args.count]
    import torch

    print("# build benchmark: %d candidates, %d at a time; torch %s, CUDA %s, %s, %d CPUs" % (
        len(entries), args.jobs, torch.__version__, torch.version.cuda,
        torch.cuda.get_device_name(0), os.cpu_count()), flush=True)
    ours_root = os.path.join(work, "ours-cache")
    shutil.rmtree(ours_root, ignore_errors=True)
    os.makedirs(ours_root)
    t0 = time.perf_counter()
    warm = subprocess.run([sys.executable, "-m", "kbharness", "warm", "--build-dir", ours_root],
                          cwd=HARNESS, capture_output=True, text=True)
    print("warm (once per environment): %.1f s %s %s" % (time.perf_counter() - t0, warm.stdout.strip(),
                                                           warm.stderr[-500:]), flush=True)

    def variant(mode, cache_for):
        results = {}
        t = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futs = {}
            for e in entries:
                ext = os.path.join(work, "ext-%s-%s" % (mode, e["file"]))
                futs[pool.submit(run_child, "default" if mode == "default" else "ours",
                                 os.path.join(FIXTURES, e["file"]), problem_path(e, args.kb_root),
                                 cache_for, ext)] = e["file"]
            for fut in concurrent.futures.as_completed(futs):
                results[futs[fut]] = fut.result()
        print("%s: %.1f s for all" % (mode, time.perf_counter() - t), flush=True)
        return results

    default = ({e["file"]: {} for e in entries} if args.skip_default else variant("default", ""))
    ours = variant("ours", ours_root)
    hit = variant("hit", ours_root)
    rows = []
    print("\n| candidate | default build (s) | ours cold (s) | route | cache hit (s) | identical outputs |")
    print("|---|---|---|---|---|---|")
    for e in entries:
        d, o, h = default[e["file"]], ours[e["file"]], hit[e["file"]]
        same = ("yes" if d.get("digest") == o.get("digest") == h.get("digest") and d.get("digest") else
                "n/a" if args.skip_default else "NO")
        print("| %s | %s | %s | %s | %s | %s |" % (
            e["file"], "%.1f" % d["build_s"] if "build_s" in d else "error",
            "%.1f" % o["build_s"] if "build_s" in o else "error", o.get("path", "-"),
            "%.2f" % h["build_s"] if "build_s" in h else "error", same))
        if "edges" in o or "diag" in o:
            print("    diag:", json.dumps({"edges": o.get("edges"), "diag": o.get("diag")}))
        for name, r in (("default", d), ("ours", o), ("hit", h)):
            if ("error" in r or "log" in r) and not (name == "default" and args.skip_default):
                print("    %s: %s" % (name, (r.get("error") or r.get("log"))[-1500:].replace("\n", "\n    ")))
        rows.append((d.get("build_s"), o.get("build_s"), h.get("build_s"), same))
    ok = [r for r in rows if None not in r[:3]]
    if ok:
        md, mo, mh = (statistics.median(r[i] for r in ok) for i in range(3))
        print("\nmedian cold build: default %.1f s, ours %.1f s (%.1fx faster); median cache hit %.2f s; "
              "identical outputs %d/%d" % (md, mo, md / mo, mh, sum(r[3] == "yes" for r in rows), len(rows)))


if __name__ == "__main__":
    main()
