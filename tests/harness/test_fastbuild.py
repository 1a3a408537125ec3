"""The fast CUDA build route and the CUDA IPC transport, in the parts a CPU can check.

The timings and the identical-output check of the fast route run on a GPU host:
bench/gpu/buildbench.py (results in bench/RESULTS.md).
"""

import os
import shutil
import tempfile
import unittest

import harness_testlib  # noqa: F401  (puts the harness on sys.path)

from kbharness import buildcache, codec, fastbuild, nvccsplit, nvml

# nvcc 13 --dryrun for "-c cuda.cu -o cuda.o" (one architecture), shortened.
DRYRUN = """#$ _NVVM_BRANCH_=nvvm
#$ _SPACE_= 
#$ CICC_PATH=/cuda/bin/../nvvm/bin
#$ SYSTEM_INCLUDES=" "/cuda/include/cccl"  
#$ gcc -std=c++17 -D__CUDA_ARCH_LIST__=900 -E -x c++ -D__CUDACC__ -include "cuda_runtime.h" -m64 "cuda.cu" -o "/tmp/tmpxft_1_00000000-5_cuda.cpp4.ii"
#$ cudafe++ --c++17 --gen_c_file_name "/tmp/tmpxft_1_00000000-6_cuda.cudafe1.cpp" --gen_module_id_file --module_id_file_name "/tmp/tmpxft_1_00000000-4_cuda.module_id" "/tmp/tmpxft_1_00000000-5_cuda.cpp4.ii"
#$ gcc -std=c++17 -D__CUDA_ARCH__=900 -E -x c++ -D__CUDACC__ -include "cuda_runtime.h" -m64 "cuda.cu" -o "/tmp/tmpxft_1_00000000-7_cuda.cpp1.ii"
#$ "$CICC_PATH/cicc" --c++17 -arch compute_90a --module_id_file_name "/tmp/tmpxft_1_00000000-4_cuda.module_id" "/tmp/tmpxft_1_00000000-7_cuda.cpp1.ii" -o "/tmp/tmpxft_1_00000000-6_cuda.ptx"
#$ ptxas -arch=sm_90a -m64  "/tmp/tmpxft_1_00000000-6_cuda.ptx"  -o "/tmp/tmpxft_1_00000000-8_cuda.cubin"
#$ fatbinary -64 "--image3=kind=elf,sm=90a,file=/tmp/tmpxft_1_00000000-8_cuda.cubin" --embedded-fatbin="/tmp/tmpxft_1_00000000-3_cuda.fatbin.c"
#$ rm /tmp/tmpxft_1_00000000-3_cuda.fatbin
#$ gcc -std=c++17 -D__CUDA_ARCH__=900 -c -x c++ -m64 "/tmp/tmpxft_1_00000000-6_cuda.cudafe1.cpp" -o "cuda.o"
""".splitlines()


class NvccSplitTests(unittest.TestCase):
    def test_plan_runs_cudafe_and_cicc_on_a_module_id_written_ahead(self):
        parsed = nvccsplit.plan(DRYRUN)
        self.assertIsNotNone(parsed)
        assigns, by, id_path = parsed
        self.assertEqual(id_path, "/tmp/tmpxft_1_00000000-4_cuda.module_id")
        self.assertNotIn("--gen_module_id_file", by["cudafe"])
        self.assertIn("-D__CUDA_ARCH__", by["pp-device"])
        self.assertNotIn("-D__CUDA_ARCH__=", by["pp-host"])
        self.assertTrue(by["rm"].startswith("rm -f"))
        self.assertIn("CICC_PATH=/cuda/bin/../nvvm/bin", assigns)

    def test_unfamiliar_pipelines_are_left_to_nvcc(self):
        two_arches = DRYRUN + [l.replace("90", "80") for l in DRYRUN if "cicc" in l or "ptxas" in l]
        self.assertIsNone(nvccsplit.plan(two_arches))
        self.assertIsNone(nvccsplit.plan([l for l in DRYRUN if "cudafe++" not in l]))
        # nvcc's own dependency filter is not a command: the wrapper removes -MD/-MF first.
        self.assertIsNone(nvccsplit.plan(DRYRUN[:5] + ["#$ -- Filter Dependencies -- > x.d"] + DRYRUN[5:]))

    def test_dependency_options_are_taken_out(self):
        args, dep = nvccsplit._take_dependency_options(["-MD", "-MF", "o.d", "-c", "a.cu", "-o", "a.o"])
        self.assertEqual(args, ["-c", "a.cu", "-o", "a.o"])
        self.assertEqual(dep, "o.d")
        args, dep = nvccsplit._take_dependency_options(
            ["--generate-dependencies-with-compile", "--dependency-output", "x.d", "-c", "a.cu"])
        self.assertEqual((args, dep), (["-c", "a.cu"], "x.d"))

    def test_module_id_is_stable_and_shaped_like_cudafe(self):
        d = tempfile.mkdtemp()
        try:
            p = os.path.join(d, "cuda.cu")
            with open(p, "w") as f:
                f.write("__global__ void k() {}\n")
            a, b = nvccsplit.module_id(p), nvccsplit.module_id(p)
            self.assertEqual(a, b)
            self.assertRegex(a, r"^_[0-9a-f]{8}_7_cuda_cu_[0-9a-f]{8}$")
            with open(p, "a") as f:
                f.write("// changed\n")
            self.assertNotEqual(nvccsplit.module_id(p), a)
        finally:
            shutil.rmtree(d)


RELU_CU = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void k(const float* x, float* y, long n) { }
torch::Tensor f(torch::Tensor x) {
  auto y = torch::empty_like(x);
  auto z = at::zeros({3}, x.options());
  k<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), 1);
  return y;
}
"""


class SlimHeaderTests(unittest.TestCase):
    def setUp(self):
        import torch.utils.cpp_extension as ce

        self.include_root = ce.include_paths()[0]

    def test_declares_exactly_the_named_operators(self):
        h = fastbuild.slim_header(RELU_CU, self.include_root)
        self.assertIn("#include <ATen/ops/empty_like.h>", h)
        self.assertIn("#include <ATen/ops/zeros.h>", h)
        self.assertNotIn("ATen/ops/ones.h", h)
        self.assertIn("#include <ATen/cuda/CUDAContext.h>", h)
        self.assertIn("constexpr auto kFloat32 = at::kFloat;", h)
        self.assertIn("using namespace at;", h)
        self.assertIsNone(fastbuild.slim_header("#include <pybind11/pybind11.h>\n", self.include_root))

    def test_sources_needing_more_of_libtorch_go_the_default_way(self):
        for src in ("PYBIND11_MODULE(m, x) {}", "torch::nn::Linear l(1, 2);", "#include <torch/all.h>",
                    "#include <ATen/ATen.h>"):
            self.assertIsNone(fastbuild.slim_header(src, self.include_root), src)

    def test_pch_settings_drop_the_extension_name(self):
        d = tempfile.mkdtemp()
        try:
            p = os.path.join(d, "build.ninja")
            with open(p, "w") as f:
                f.write("cxx = /usr/bin/c++\ncflags = -DTORCH_EXTENSION_NAME=abc -DTORCH_API_INCLUDE_EXTENSION_H "
                        "-isystem /inc -fPIC -std=c++17\npost_cflags = \n")
            cxx, cflags = fastbuild.compile_settings_from_ninja(p)
            self.assertEqual(cxx, "/usr/bin/c++")
            self.assertEqual(cflags, "-DTORCH_API_INCLUDE_EXTENSION_H -isystem /inc -fPIC -std=c++17")
            self.assertIsNone(fastbuild.ready_pch(d))  # nothing built yet
        finally:
            shutil.rmtree(d)


class FallbackTests(unittest.TestCase):
    """A fast build that fails is built again the default way: the verdict is torch's own."""

    def test_failed_fast_build_falls_back_to_the_default_route(self):
        import torch.utils.cpp_extension as ce

        calls = []

        def fake_load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                             extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
                             build_directory=None, verbose=False, with_cuda=None, is_python_module=True,
                             with_pytorch_error_handling=True, keep_intermediates=True):
            calls.append(list(extra_cuda_cflags or []))
            if any(f.startswith("-I") and f.endswith(fastbuild.SLIM_DIR) for f in extra_cuda_cflags or []):
                raise RuntimeError("error building extension (slim headers lack something)")
            with open(os.path.join(build_directory, name + ".so"), "w") as f:
                f.write("stand-in")
            return "module built the default way"

        saved_inline, saved_load = ce.load_inline, ce.load
        saved_records = list(buildcache.RECORDS)
        d = tempfile.mkdtemp()
        try:
            ce.load_inline = fake_load_inline
            buildcache.install(d, "cuda")
            del buildcache.RECORDS[:]
            m = ce.load_inline(name="fallback_probe", cpp_sources=["torch::Tensor f(torch::Tensor x);"],
                               cuda_sources=[RELU_CU], functions=["f"])
            self.assertEqual(m, "module built the default way")
            self.assertEqual(len(calls), 2)
            self.assertTrue(any(c.endswith(fastbuild.SLIM_DIR) for c in calls[0]))
            self.assertEqual(calls[1], [])
            rec = buildcache.RECORDS[-1]
            self.assertEqual(rec["status"], "ok")
            self.assertIn("fast build failed", rec["path"])
            self.assertIn("slim headers lack something", rec["log"])
            self.assertIsNone(os.environ.get("PYTORCH_NVCC"))  # restored after the fast try
        finally:
            ce.load_inline, ce.load = saved_inline, saved_load
            buildcache.RECORDS[:] = saved_records
            shutil.rmtree(d, ignore_errors=True)


class IpcDescriptionTests(unittest.TestCase):
    """The judge opens a CUDA IPC tensor only when it asked for that transport, and only
    after checking every field the (untrusted) worker sent."""

    def desc(self, **ipc):
        base = {"device": 0, "handle": "AAAA", "size_bytes": 64, "offset_bytes": 0, "ref_handle": "dG9yY2hfMV8x",
                "ref_offset": 0, "event_handle": None, "event_sync": False, "storage_offset": 0, "stride": [1]}
        base.update(ipc)
        return {"t": "tensor", "dtype": "float32", "shape": [4], "device": "cuda:0", "ipc": base}

    def test_ipc_tensor_on_a_byte_channel_is_rejected(self):
        with self.assertRaisesRegex(codec.DecodeError, "byte channel"):
            codec.decode(self.desc(), b"")

    def test_malformed_fields_are_rejected_before_any_cuda_call(self):
        for bad in ({"size_bytes": -1}, {"stride": [1, 1]}, {"event_sync": 1}, {"handle": 5},
                    {"device": "0"}, {"storage_offset": 1.5}):
            with self.assertRaises(codec.DecodeError, msg=repr(bad)):
                codec.decode(self.desc(**bad), b"", allow_ipc=True)

    def test_reference_counter_name_is_checked(self):
        import torch

        if torch.cuda.device_count() == 0:
            with self.assertRaisesRegex(codec.DecodeError, "does not exist"):
                codec.decode(self.desc(), b"", allow_ipc=True)
            return
        import base64

        evil = base64.b64encode(b"/../../etc/passwd").decode()
        with self.assertRaisesRegex(codec.DecodeError, "unexpected name"):
            codec.decode(self.desc(ref_handle=evil), b"", allow_ipc=True)


class NvmlTests(unittest.TestCase):
    def test_throttle_reasons_are_named(self):
        self.assertEqual(nvml.decode_throttle_reasons(0), [])
        self.assertEqual(nvml.decode_throttle_reasons(0x4 | 0x40), ["sw_power_cap", "hw_thermal_slowdown"])
        self.assertEqual(nvml.decode_throttle_reasons(0x1 | 0x10000), ["gpu_idle", "other(0x10000)"])

    def test_sample_reads_every_field_through_nvml(self):
        """A stand-in NVML library answers through the same pointers the real one fills."""

        class FakeNvml:
            def nvmlDeviceGetHandleByPciBusId_v2(self, bus, handle):
                return 1  # not found: falls back to the index

            def nvmlDeviceGetHandleByIndex_v2(self, index, handle):
                handle._obj.value = 42
                return 0

            def nvmlDeviceGetClockInfo(self, h, kind, out):
                out._obj.value = 1980 if kind == nvml.NVML_CLOCK_SM else 3201
                return 0

            def nvmlDeviceGetTemperature(self, h, sensor, out):
                out._obj.value = 41
                return 0

            def nvmlDeviceGetPowerUsage(self, h, out):
                out._obj.value = 612500  # mW
                return 0

            def nvmlDeviceGetUtilizationRates(self, h, out):
                out._obj.gpu = 97
                return 0

            def nvmlDeviceGetCurrentClocksEventReasons(self, h, out):
                out._obj.value = 0x4
                return 0

        saved = (nvml._LIB, nvml._TRIED)
        try:
            nvml._LIB, nvml._TRIED = FakeNvml(), True
            self.assertEqual(nvml.sample(0), {"sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "temperature_c": 41.0,
                                              "power_w": 612.5, "utilization": 97.0,
                                              "throttle_reasons": ["sw_power_cap"]})
            nvml._LIB = None
            self.assertIsNone(nvml.sample(0))  # no NVML: no reading, nothing else changes
        finally:
            nvml._LIB, nvml._TRIED = saved


if __name__ == "__main__":
    unittest.main()
