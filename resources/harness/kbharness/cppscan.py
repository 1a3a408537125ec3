"""The scan of C++/CUDA sources (kernels in string literals or files under kernels/):
ATen compute calls, threads, side streams, CUDA graphs, persisting-L2 windows, reduced
precision, system calls and vendor libraries, line by line after comments and string
literals are blanked out. Also the vendor-library policy, shared with the Python rules
(``-l<lib>`` in a build's flags)."""

import re
from typing import Any, FrozenSet, List

from . import rules
from .rules import Finding

# policy.allow_vendor_libraries: "none" | "gemm" | "conv" | "all" (or a list of
# "gemm"/"conv"; true = "all", false = "none").  "gemm" allows cuBLAS/cuBLASLt
# and CUTLASS/CuTe, "conv" allows cuDNN.  Other vendor libraries need "all".
VENDOR_CLASSES = ("gemm", "conv", "all")


def vendor_allowance(value: Any) -> FrozenSet[str]:
    """Normalise policy.allow_vendor_libraries to a frozenset of classes."""
    if value is True:
        return frozenset(VENDOR_CLASSES)
    if value in (None, False, "none", ""):
        return frozenset()
    if isinstance(value, str):
        value = [value]
    if isinstance(value, (list, tuple)):
        out = set()
        for v in value:
            if v == "all":
                return frozenset(VENDOR_CLASSES)
            if v not in ("gemm", "conv", "none"):
                raise ValueError("policy.allow_vendor_libraries: unknown value %r" % (v,))
            if v != "none":
                out.add(v)
        return frozenset(out)
    raise ValueError("policy.allow_vendor_libraries must be none, gemm, conv, all or a list of them")


def vendor_class(name: str) -> str:
    low = name.lower()
    if low.startswith("cublas") or low.startswith("cutlass") or low.startswith("cute") or \
            "cudablashandle" in low or low.startswith("-lcublas"):
        return "gemm"
    if low.startswith("cudnn") or low.startswith("-lcudnn"):
        return "conv"
    return "all"


CPP_ALLOWED_TORCH = frozenset({
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like", "from_blob", "TensorOptions", "Tensor", "Scalar", "Device", "device", "dtype",
    "IntArrayRef", "parallel_for", "get_num_threads", "get_thread_num", "in_parallel_region",
    "cuda", "kCPU", "kCUDA", "kFloat", "kFloat32", "kHalf", "kDouble", "kInt", "kLong",
    "kBFloat16", "kBool", "indexing", "getCurrentCUDAStream", "CUDAGuard", "OptionalCUDAGuard",
    "DeviceGuard", "toType", "scalarTypeToTypeMeta", "typeMetaToScalarType", "ScalarType",
    "MemoryFormat", "Layout", "Generator", "detail", "checkAllSameGPU", "checkContiguous",
    "TensorArg", "check_dim", "arange", "tensor", "NoGradGuard", "AutoDispatchBelowADInplaceOrView",
    "InferenceMode", "zeros_symint", "empty_symint",
})
CPP_COMPUTE_METHOD = re.compile(
    r"\.\s*(matmul|mm|bmm|addmm|addmv|baddbmm|relu|relu_|gelu|sigmoid|sigmoid_|tanh|tanh_|softmax|"
    r"log_softmax|sum|mean|exp|exp_|log|pow|sqrt|rsqrt|max|min|clamp|clamp_|conv\w*|mul|mul_|add|"
    r"add_|sub|sub_|div|div_|matmul_out|linear|layer_norm|batch_norm|einsum|norm|var|std|cumsum|"
    r"prod|amax|amin|argmax|argmin|topk|sort|where|leaky_relu|hardtanh|softplus|silu|mish|elu)"
    r"\s*\(")
CPP_TORCH_CALL = re.compile(r"\b(?:torch|at)\s*::\s*((?:\w+\s*::\s*)*)(\w+)\s*(?:<[^<>;()]*>)?\s*\(")
CPP_VENDOR = re.compile(r"\b(cublas\w*|cublasLt\w*|cudnn\w*|cutlass::|cute::|cusparse\w*|"
                        r"cufft\w*|curand\w*|cusolver\w*|mkl_\w+|cblas_\w+|dnnl\w*|oneapi::|"
                        r"getCurrentCUDABlasHandle\w*|getCurrentCUDABlasLtHandle\w*|"
                        r"getCudnnHandle\w*)")
CPP_THREAD = re.compile(r"\b(std\s*::\s*thread|std\s*::\s*async|std\s*::\s*jthread|pthread_create|"
                        r"cudaLaunchHostFunc|cudaStreamAddCallback|thrd_create|daemon|setsid)\b")
CPP_STREAM = re.compile(r"\b(cudaStreamCreate\w*|getStreamFromPool|getStreamFromExternal|"
                        r"cudaStreamPerThread|cuStreamCreate\w*)\b")
CPP_GRAPH = re.compile(r"\b(cudaGraph\w*|cudaStreamBeginCapture\w*|cudaStreamEndCapture|cuGraph\w*|"
                       r"CUDAGraph)\b")
CPP_L2 = re.compile(r"\b(cudaAccessPolicyWindow|accessPolicyWindow|cudaStreamSetAttribute|"
                    r"cudaStreamAttrValue|cudaKernelNodeAttrValue|cudaLimitPersistingL2CacheSize|"
                    r"cudaDeviceSetLimit|cudaCtxResetPersistingL2Cache|cudaAccessPropertyPersisting|"
                    r"cudaLaunchAttributeAccessPolicyWindow|cuCtxSetLimit|persistingL2CacheMaxSize)\b")
CPP_PRECISION = re.compile(r"\b(__half2?|__nv_bfloat16\w*|at::Half|at::BFloat16|kHalf|kBFloat16|"
                           r"__float2half\w*|__float2bfloat16\w*|wmma::|mma\.sync\.aligned\.\w*\.f16)")
CPP_SYSCALL = re.compile(r"\b(system|popen|fork|vfork|execv\w*|execl\w*|dlopen|dlsym|fopen|freopen|"
                         r"open|openat|creat|socket|connect|sendto|mprotect|ptrace|syscall|unlink|"
                         r"getppid|kill|prctl|setrlimit|mmap)\s*\(")
CPP_FILE_TYPES = re.compile(r"\b(std\s*::\s*ofstream|std\s*::\s*ifstream|std\s*::\s*fstream|"
                            r"std\s*::\s*filesystem|ofstream|ifstream|fstream|FILE\s*\*)")
# A vendor library linked through a build's flags (-lcublas in extra_ldflags).
VENDOR_LINK_FLAG = re.compile(r"-l\s*(cublas\w*|cudnn\w*|cusparse\w*|cufft\w*|curand\w*|cusolver\w*|"
                              r"mkl\w*|dnnl\w*|openblas\w*|blas\w*)")
# A token-pasting macro lets C++ spell any name the scan looks for.
CPP_PASTE = re.compile(r"##")


def looks_like_cpp(text: str) -> bool:
    if len(text) < 20:
        return False
    return "#include" in text or ("{" in text and ";" in text and ("(" in text))


def strip_cpp_comments(text: str) -> str:
    """Blank out // and /* */ comments and string literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('"' + " " * max(0, j - i - 2) + '"')
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scan(text: str, base_line: int, allow_ops: bool, allowed: FrozenSet[str],
         reduced_precision: bool) -> List[Finding]:
    """The findings in one C++/CUDA text, in the order met (repeats included: the caller
    drops them); its line 1 is ``base_line`` of the candidate's file."""
    out = []

    def add(rule, message, line, col, lesser=False):
        out.append(Finding(rule, rules.severity(rule, lesser), int(line), int(col), message))

    code = strip_cpp_comments(text)
    for lineno, line in enumerate(code.split("\n")):
        at = base_line + lineno
        if not allow_ops:
            for m in CPP_TORCH_CALL.finditer(line):
                ns, name = m.group(1).replace(" ", ""), m.group(2)
                if ns.startswith("cuda") or ns.startswith("native::Half") or ns.startswith("indexing"):
                    continue
                if name in CPP_ALLOWED_TORCH or name[0].isupper() or name.startswith("k"):
                    continue
                if ns.startswith("detail") or ns.startswith("internal"):
                    continue
                add("cpp-torch-op", "C++ source calls %s (a PyTorch compute op)" % m.group(0).rstrip("( "),
                    at, m.start())
            for m in CPP_COMPUTE_METHOD.finditer(line):
                add("cpp-torch-op", "C++ source calls tensor method .%s() (a PyTorch compute op)" % m.group(1),
                    at, m.start())
        for m in CPP_VENDOR.finditer(line):
            if vendor_class(m.group(1)) in allowed:
                continue
            add("vendor-library", "C++ source uses %s (vendor library) and the policy (allow_vendor_libraries=%s) "
                "forbids it" % (m.group(1), "+".join(sorted(allowed)) or "none"),
                at, m.start())
        for m in CPP_THREAD.finditer(line):
            add("cpp-thread-or-stream", "C++ source uses %s: work can escape the timed window" %
                m.group(1), at, m.start())
        for m in CPP_STREAM.finditer(line):
            add("side-stream", "C++ source uses %s: work on a side stream can escape the timed window" %
                m.group(1), at, m.start())
        for m in CPP_GRAPH.finditer(line):
            add("cuda-graph", "C++ source uses %s: captured work can be replayed instead of computed" %
                m.group(1), at, m.start())
        for m in CPP_L2.finditer(line):
            add("l2-persistence", "C++ source uses %s: persisting-L2 windows keep data cached across timed "
                "calls" % m.group(1), at, m.start())
        for m in CPP_PRECISION.finditer(line):
            add("precision-downgrade", "C++ source uses reduced precision (%s)" % m.group(1), at, m.start(),
                lesser=reduced_precision)
        for m in CPP_FILE_TYPES.finditer(line):
            add("cpp-system-call", "C++ source uses %s: kernels have no business with files" % m.group(1),
                at, m.start())
        if CPP_PASTE.search(line):
            add("cpp-token-paste", "token pasting (##) can spell names the scan looks for", at,
                line.find("##"))
        for m in CPP_SYSCALL.finditer(line):
            add("cpp-system-call", "C++ source calls %s(), which a kernel has no business doing" % m.group(1),
                at, m.start())
    return out
