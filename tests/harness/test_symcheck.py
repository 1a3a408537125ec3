"""The library check's reading of names and machine code (kbharness/symcheck.py), without a
torch build: how imported names are classified under the policy, and what nm and objdump
give for small libraries compiled here."""

import os
import shutil
import subprocess
import tempfile
import unittest

from kbharness import rules, symcheck

NONE = frozenset()

# what load_inline builds of honest kernels import (read with nm -D from CPU and CUDA builds)
HONEST = [
    "at::_ops::empty_like::call(at::Tensor const&, std::optional<c10::ScalarType>)",
    "at::_ops::empty_memory_format::call(c10::ArrayRef<c10::SymInt>, std::optional<c10::ScalarType>)",
    "at::_ops::contiguous::call(at::Tensor const&, c10::MemoryFormat)",
    "at::_ops::view::call(at::Tensor const&, c10::ArrayRef<c10::SymInt>)",
    "at::_ops::to_dtype::call(at::Tensor const&, c10::ScalarType, bool, bool, std::optional<c10::MemoryFormat>)",
    "at::_ops::_to_copy::call(at::Tensor const&)", "at::_ops::zero_::call(at::Tensor&)",
    "at::_ops::expand::call(at::Tensor const&, c10::ArrayRef<c10::SymInt>, bool)",
    "at::_ops::new_empty::call(at::Tensor const&)", "at::_ops::_local_scalar_dense::call(at::Tensor const&)",
    "at::TensorBase::data_ptr<float>() const", "c10::detail::torchCheckFail(char const*, char const*, unsigned int, "
    "char const*)", "c10::cuda::getCurrentCUDAStream(signed char)", "at::cuda::getCurrentDeviceProperties()",
    "cudaLaunchKernel", "__cudaRegisterFunction", "__cudaRegisterFatBinary", "__cudaPushCallConfiguration",
    "cudaGetLastError", "cudaGetErrorString", "memcpy", "memset", "malloc", "free", "strlen", "__cxa_atexit",
    "GOMP_parallel", "omp_get_num_threads", "PyObject_GetAttrString", "PyEval_GetBuiltins", "PyObject_CallObject",
    # an honest kernel's CUDAGuard carries a vtable whose inline methods take pool streams
    "c10::cuda::getStreamFromPool(bool, signed char)", "c10::cuda::getStreamFromPool(int, signed char)",
    "cudaEventCreateWithFlags", "cudaEventRecord", "cudaStreamWaitEvent", "cudaStreamIsCapturing",
    "PyFrame_GetBack", "PyImport_ImportModule", "PyEval_GetFrame", "pthread_once", "pthread_mutex_lock",
    "__tls_get_addr",
]


class ClassifyTests(unittest.TestCase):
    def test_honest_imports_have_no_finding(self):
        for name in HONEST:
            with self.subTest(name=name):
                self.assertIsNone(symcheck.classify(name, False, NONE))

    def test_aten_compute_is_found_whatever_the_overload(self):
        for name in ("at::_ops::relu::call(at::Tensor const&)", "at::_ops::relu_::call(at::Tensor&)",
                     "at::_ops::add_Tensor::call(at::Tensor const&, at::Tensor const&, c10::Scalar const&)",
                     "at::_ops::mm_out::call(at::Tensor const&, at::Tensor const&, at::Tensor&)",
                     "at::_ops::_softmax::call(at::Tensor const&, long, bool)",
                     "at::_ops::linalg_vector_norm::call(at::Tensor const&)",
                     "at::_ops::_scaled_dot_product_flash_attention::call(at::Tensor const&)",
                     "at::_ops::sum_dim_IntList::redispatch(c10::DispatchKeySet, at::Tensor const&)",
                     "at::native::matmul(at::Tensor const&, at::Tensor const&)",
                     "at::cuda::mm(at::Tensor const&, at::Tensor const&)"):
            with self.subTest(name=name):
                rule, message = symcheck.classify(name, False, NONE)
                self.assertEqual(rule, "cpp-torch-op")
                self.assertIn("ATen", message)
                # torch ops allowed by the policy: no finding
                self.assertIsNone(symcheck.classify(name, True, NONE))

    def test_operators_reached_by_name(self):
        rule, _ = symcheck.classify("c10::Dispatcher::findSchemaOrThrow(char const*, char const*)", False, NONE)
        self.assertEqual(rule, "cpp-torch-op")

    def test_families(self):
        cases = {
            "pthread_create": "cpp-thread-or-stream", "clone": "cpp-thread-or-stream",
            "std::thread::_M_start_thread(std::unique_ptr<std::thread::_State>, void (*)())": "cpp-thread-or-stream",
            "at::launch(std::function<void ()>)": "cpp-thread-or-stream",
            "cudaLaunchHostFunc": "cpp-thread-or-stream",
            "sigaction": "cpp-system-call", "dlsym": "cpp-system-call", "mprotect": "cpp-system-call",
            "fopen64": "cpp-system-call", "sched_setaffinity": "cpp-system-call",
            "std::basic_ofstream<char, std::char_traits<char> >::basic_ofstream()": "cpp-system-call",
            "PyRun_SimpleString": "cpp-system-call", "PyEval_SetTrace": "cpp-system-call",
            "cudaStreamCreateWithFlags": "side-stream", "cudaLaunchKernel_ptsz": "side-stream",
            "cudaStreamBeginCapture": "cuda-graph", "cudaGraphLaunch": "cuda-graph",
            "cudaStreamSetAttribute": "l2-persistence",
            "cublasSgemm_v2": "vendor-library", "cudnnConvolutionForward": "vendor-library",
            "at::cuda::getCurrentCUDABlasHandle()": "vendor-library",
        }
        for name, want in cases.items():
            with self.subTest(name=name):
                hit = symcheck.classify(name, True, NONE)
                self.assertIsNotNone(hit)
                self.assertEqual(hit[0], want)
                self.assertEqual(rules.severity(want), rules.REJECT)

    def test_vendor_policy(self):
        gemm = frozenset({"gemm"})
        self.assertIsNone(symcheck.classify("cublasSgemm_v2", False, gemm))
        self.assertIsNone(symcheck.classify("at::cuda::getCurrentCUDABlasHandle()", False, gemm))
        self.assertEqual(symcheck.classify("cudnnConvolutionForward", False, gemm)[0], "vendor-library")
        self.assertIsNone(symcheck.classify("cudnnConvolutionForward", False, frozenset({"conv"})))

    def test_compute_names(self):
        for name in ("add_Tensor", "_softmax", "max_pool2d", "sum_to_size", "pow_Tensor_Scalar", "where_self"):
            self.assertTrue(symcheck.is_compute_op(name), name)
        for name in ("expand", "expand_as", "_to_copy", "empty_like", "new_empty", "select_int", "narrow", "copy_",
                     "fill__Scalar", "_local_scalar_dense", "alias", "cat"):
            self.assertFalse(symcheck.is_compute_op(name), name)


class LibraryTests(unittest.TestCase):
    """Small shared libraries compiled here, read the way the judge reads a candidate's."""

    def build(self, source):
        d = tempfile.mkdtemp(prefix="kbsym-")
        self.addCleanup(shutil.rmtree, d, True)
        src, lib = os.path.join(d, "x.c"), os.path.join(d, "libx.so")
        with open(src, "w") as f:
            f.write(source)
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", lib, src], check=True)
        return lib

    def test_plain_library_is_clean(self):
        lib = self.build("#include <string.h>\nvoid f(float *a, const float *b, int n) { memcpy(a, b, n * 4); }\n")
        self.assertIn("memcpy", symcheck.imported_names(lib))
        self.assertEqual(symcheck.system_call_instructions(lib), [])
        self.assertEqual(symcheck.check_library(lib, False, NONE), [])

    def test_imports_and_instructions(self):
        lib = self.build("#include <pthread.h>\n#include <signal.h>\n"
                         "static void *run(void *p) { return p; }\n"
                         "int spawn(void) { pthread_t t; return pthread_create(&t, 0, run, 0); }\n"
                         "int quiet(void) { return sigaction(SIGCONT, 0, 0); }\n"
                         "long raw(long n) { long r; __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(n) "
                         ": \"rcx\", \"r11\", \"memory\"); return r; }\n")
        names = symcheck.imported_names(lib)
        self.assertIn("pthread_create", names)  # version suffix (@GLIBC_...) dropped
        self.assertEqual(symcheck.system_call_instructions(lib), ["raw"])
        found = symcheck.check_library(lib, False, NONE)
        self.assertEqual(sorted(f.rule for f in found), ["cpp-system-call", "cpp-system-call", "cpp-thread-or-stream"])
        self.assertTrue(all(f.severity == rules.REJECT and f.line == 0 for f in found))
        self.assertTrue(all("libx.so" in f.message for f in found))

    def test_missing_tool_is_reported(self):
        lib = self.build("int f(void) { return 1; }\n")
        with self.assertRaises(symcheck.ToolMissing):
            symcheck.imported_names(lib, nm="/nonexistent/nm")
        with self.assertRaises(symcheck.ToolMissing):
            symcheck.imported_names(os.path.join(os.path.dirname(lib), "x.c"))


if __name__ == "__main__":
    unittest.main()
