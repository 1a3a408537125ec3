"""Timing fidelity of the harness on a GPU.

For each KernelBench problem, the eager reference is timed three ways on the same inputs
(generated on the device, seeded):
  ours_1, ours_2  the harness's own timing loop (kbharness.timing.time_callable: CUDA events,
                  L2 flush before every sample, whole-device sync before the end mark), twice
  triton          triton.testing.do_bench(..., return_mode="median"), an independent method
and the medians are compared: ours_1 / triton (fidelity) and ours_2 / ours_1 (repeatability).

usage: python3 bench/gpu/fidelity.py --problems DIR --out FILE.json [--trials 100] NAME.py ...
"""
import argparse
import importlib.util
import json
import statistics
import sys
import time


def load(path):
    spec = importlib.util.spec_from_file_location("kb_problem", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()

    import torch
    import triton.testing
    from kbharness import timing

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for name in args.names:
        t0 = time.time()
        model = inputs = None
        try:
            mod = load("%s/%s" % (args.problems, name))
            torch.manual_seed(1234)
            with torch.device("cuda"):
                model = mod.Model(*mod.get_init_inputs()).eval()
                inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
            model = model.cuda()
            with torch.no_grad():
                s1, _ = timing.time_callable(model, [inputs], "cuda", 3, args.trials, 20, keep_outputs=False)
                s2, _ = timing.time_callable(model, [inputs], "cuda", 3, args.trials, 20, keep_outputs=False)
                tri = triton.testing.do_bench(lambda: model(*inputs), warmup=25, rep=100, return_mode="median")
            o1, o2 = statistics.median(s1), statistics.median(s2)
            row = {"problem": name, "ours_1_ms": o1, "ours_2_ms": o2, "triton_ms": tri,
                   "fidelity": o1 / tri, "repeat": o2 / o1, "samples": len(s1), "seconds": time.time() - t0}
        except Exception as e:  # a problem that cannot run is reported, not hidden
            row = {"problem": name, "error": "%s: %s" % (type(e).__name__, e)}
        rows.append(row)
        print(json.dumps(row), flush=True)
        del model, inputs
        torch.cuda.empty_cache()
    ok = [r for r in rows if "error" not in r]
    summary = {
        "device": torch.cuda.get_device_name(), "torch": torch.__version__,
        "triton": getattr(triton, "__version__", "?"), "problems": len(rows), "measured": len(ok),
        "median_abs_fidelity_dev": statistics.median(abs(r["fidelity"] - 1) for r in ok) if ok else None,
        "median_abs_repeat_dev": statistics.median(abs(r["repeat"] - 1) for r in ok) if ok else None,
    }
    print(json.dumps(summary), flush=True)
    with open(args.out, "w") as f:
        json.dump({"summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
