"""Where the time of a load_inline CUDA build goes, and what a slimmer build saves.

Run on a CUDA host:  python bench/gpu/buildprobe.py OUTDIR
Prints one table per candidate: the default build's edges (.ninja_log), nvcc phase times
(--time), and the same translation units compiled with a slim torch header set and with a
precompiled header for main.cpp.
"""
import csv
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
import time

CANDS = {
"relu": dict(cpp="torch::Tensor relu_fwd(torch::Tensor x);", cuda=r'''
#include <torch/extension.h>
__global__ void relu_k(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_fwd(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda(), "x must be CUDA");
  auto y = torch::empty_like(x);
  long n = x.numel();
  relu_k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}''', fn=["relu_fwd"]),
"rowsum": dict(cpp="torch::Tensor rowsum(torch::Tensor x);", cuda=r'''
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
template <typename T>
__global__ void rowsum_k(const T* x, T* y, int rows, int cols) {
  int r = blockIdx.x; T acc = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[r * cols + c];
  __shared__ T s[256]; s[threadIdx.x] = acc; __syncthreads();
  for (int o = 128; o > 0; o >>= 1) { if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o]; __syncthreads(); }
  if (threadIdx.x == 0) y[r] = s[0];
}
torch::Tensor rowsum(torch::Tensor x) {
  const at::cuda::CUDAGuard guard(x.device());
  auto xc = x.contiguous();
  auto y = torch::zeros({xc.size(0)}, xc.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "rowsum", [&] {
    rowsum_k<scalar_t><<<xc.size(0), 256, 0, stream>>>(xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), xc.size(0), xc.size(1));
  });
  return y;
}''', fn=["rowsum"]),
}

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "resources", "harness"))
from kbharness.fastbuild import slim_header  # noqa: E402  (the stand-in the harness uses)


def sh(cmd, cwd=None, env=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, shell=isinstance(cmd, str), capture_output=True, text=True)
    return time.perf_counter() - t, p


def ninja_vars(path):
    v = {}
    cur = None
    for line in open(path):
        m = re.match(r"^(\w+) = (.*)$", line.rstrip("\n"))
        if m:
            v[m.group(1)] = m.group(2)
    return v


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/buildprobe"
    os.makedirs(out, exist_ok=True)
    import torch
    import torch.utils.cpp_extension as ce
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "use_pch": "use_pch" in inspect.signature(ce.load_inline).parameters,
            "cpus": os.cpu_count()}
    t, _ = sh([sys.executable, "-c", "import torch"])
    info["import_torch_s"] = round(t, 2)
    print(json.dumps(info))
    inc_root = ce.include_paths()[0]
    rows = []
    for name, c in CANDS.items():
        bdir = os.path.join(out, name)
        os.makedirs(bdir, exist_ok=True)
        code = ("import torch, time\nfrom torch.utils.cpp_extension import load_inline\nt=time.perf_counter()\n"
                "m=load_inline(name=%r, cpp_sources=[%r], cuda_sources=[%r], functions=%r, build_directory=%r, verbose=False)\n"
                "print('BUILD', time.perf_counter()-t)\n" % (name, c["cpp"], c["cuda"], c["fn"], bdir))
        t, p = sh([sys.executable, "-c", code])
        print("default", name, round(t, 1), p.stdout.strip()[-200:], p.stderr[-2000:] if p.returncode else "")
        rows.append((name, "default load_inline (process)", t))
        log = os.path.join(bdir, ".ninja_log")
        if os.path.exists(log):
            for line in open(log):
                if line.startswith("#"):
                    continue
                s, e, _, target, _ = line.split("\t")
                rows.append((name, "  ninja " + target, (int(e) - int(s)) / 1000))
        v = ninja_vars(os.path.join(bdir, "build.ninja"))
        nvcc = v.get("nvcc", "nvcc")
        cxx = v.get("cxx", "c++")
        cu = os.path.join(bdir, "cuda.cu")
        base_cu = "%s %s -c %s -o %s %s" % (nvcc, v.get("cuda_cflags", ""), cu, os.path.join(out, name + "_d.o"), v.get("cuda_post_cflags", ""))
        t, p = sh(base_cu + " --time " + os.path.join(out, name + "_time.csv"))
        rows.append((name, "nvcc cuda.cu default flags", t))
        try:
            with open(os.path.join(out, name + "_time.csv")) as f:
                for r in csv.reader(f):
                    if len(r) >= 4 and r[0].strip() not in ("source file name", ""):
                        rows.append((name, "    phase " + r[1].strip(), float(r[3]) / 1000.0))
        except Exception as e:
            print("time csv", e)
        # slim header set
        slim = os.path.join(out, name + "_slim")
        os.makedirs(os.path.join(slim, "torch"), exist_ok=True)
        body = slim_header(c["cuda"], inc_root)
        extra = ""
        for hn in ("types.h", "extension.h"):
            with open(os.path.join(slim, "torch", hn), "w") as f:
                f.write(body + extra)
        slim_cmd = "%s -I%s %s -c %s -o %s %s" % (nvcc, slim, v.get("cuda_cflags", ""), cu, os.path.join(out, name + "_s.o"), v.get("cuda_post_cflags", ""))
        t, p = sh(slim_cmd)
        rows.append((name, "nvcc cuda.cu slim headers" + ("" if p.returncode == 0 else " FAILED"), t))
        if p.returncode:
            print(p.stderr[-3000:])
        t, p = sh(slim_cmd + " -Xcompiler -O0")
        rows.append((name, "nvcc slim, host -O0", t))
        # main.cpp: default and with a PCH
        mc = os.path.join(bdir, "main.cpp")
        t, p = sh("%s -MMD %s -c %s -o %s %s" % (cxx, v.get("cflags", ""), mc, os.path.join(out, name + "_m.o"), v.get("post_cflags", "")))
        rows.append((name, "c++ main.cpp default", t))
        pchdir = os.path.join(out, "pch")
        os.makedirs(pchdir, exist_ok=True)
        ph = os.path.join(pchdir, "kb_pch.h")
        with open(ph, "w") as f:
            f.write("#include <torch/extension.h>\n")
        if not os.path.exists(ph + ".gch"):
            t, p = sh("%s -x c++-header %s -o %s.gch %s %s" % (cxx, v.get("cflags", ""), ph, ph, v.get("post_cflags", "")))
            rows.append((name, "c++ PCH creation (once per environment)", t))
            if p.returncode:
                print(p.stderr[-2000:])
        t, p = sh("%s -include %s -Winvalid-pch %s -c %s -o %s %s" % (cxx, ph, v.get("cflags", ""), mc, os.path.join(out, name + "_mp.o"), v.get("post_cflags", "")))
        rows.append((name, "c++ main.cpp with PCH" + ("" if p.returncode == 0 else " FAILED"), t))
        if p.returncode or "invalid" in p.stderr:
            print(p.stderr[-2000:])
        t, p = sh("%s %s %s -shared %s -o %s" % (cxx, os.path.join(out, name + "_mp.o"), os.path.join(out, name + "_s.o"), v.get("ldflags", ""), os.path.join(out, name + "_fast.so")))
        rows.append((name, "link", t))
        # does the fast module import and compute the same thing?
        chk = ("import torch, importlib.util, sys\n"
               "spec=importlib.util.spec_from_file_location(%r, %r)\nm=importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\n"
               "sys.path.insert(0,%r)\nimport %s as d\nx=torch.randn(64,300,device='cuda')\n"
               "a=getattr(m,%r)(x); b=getattr(d,%r)(x); print('IDENTICAL', torch.equal(a,b))\n"
               % (name, os.path.join(out, name + "_fast.so"), bdir, name, c["fn"][0], c["fn"][0]))
        t, p = sh([sys.executable, "-c", chk])
        print("check", name, p.stdout.strip(), p.stderr[-1500:])
    print("| candidate | step | seconds |\n|---|---|---|")
    for r in rows:
        print("| %s | %s | %.2f |" % (r[0], r[1], r[2]))
    print("build.ninja flags:", json.dumps({k: v for k, v in ninja_vars(os.path.join(out, "relu", "build.ninja")).items()}, indent=1)[:4000])


if __name__ == "__main__":
    main()
