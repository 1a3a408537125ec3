"""AST-based static checks of a candidate solution.

``analyze(source, policy)`` returns a list of :class:`Finding`.  Severity
``reject`` means the candidate is not built or run; ``suspicious`` marks it
for review; ``info`` is just recorded.

The checker looks at:
  * ``ModelNew.forward`` and every helper reachable from it (module-level
    functions called by name, ``self.method(...)`` calls, ``forward`` of
    candidate-defined submodules) for PyTorch compute ops;
  * the whole module for uses of the reference ``Model``, fallbacks,
    monkey-patching, forbidden imports, dynamic code and file writes;
  * the C++/CUDA sources (string literals) for ``torch::``/``at::`` compute
    calls, threads and vendor libraries.
"""

import ast
import os
import re
from collections import namedtuple

Finding = namedtuple("Finding", "rule severity line col message")

REJECT = "reject"
SUSPICIOUS = "suspicious"
INFO = "info"

# Rules whose findings make the candidate "invalid" rather than "rejected".
INVALID_RULES = frozenset({"syntax-error", "missing-modelnew"})

DEFAULT_POLICY = {"allow_torch_ops": False, "allow_vendor_libraries": "none", "precision": "fp32"}

# policy.allow_vendor_libraries: "none" | "gemm" | "conv" | "all" (or a list of
# "gemm"/"conv"; true = "all", false = "none").  "gemm" allows cuBLAS/cuBLASLt
# and CUTLASS/CuTe, "conv" allows cuDNN.  Other vendor libraries need "all".
VENDOR_CLASSES = ("gemm", "conv", "all")


def vendor_allowance(value):
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


def _vendor_class(name):
    low = name.lower()
    if low.startswith("cublas") or low.startswith("cutlass") or low.startswith("cute") or \
            "cudablashandle" in low or low.startswith("-lcublas"):
        return "gemm"
    if low.startswith("cudnn") or low.startswith("-lcudnn"):
        return "conv"
    return "all"

# torch.<name>(...) calls that allocate, describe or move data but compute
# nothing the task asks for.
ALLOWED_TORCH_FUNCS = frozenset({
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
    "full", "full_like", "tensor", "as_tensor", "from_numpy", "arange", "device", "dtype",
    "Size", "no_grad", "inference_mode", "enable_grad", "is_tensor", "is_floating_point",
    "numel", "get_default_dtype", "finfo", "iinfo", "promote_types", "result_type",
    "manual_seed", "is_grad_enabled",
})
# torch.<namespace>.* calls that are fine.
ALLOWED_TORCH_NAMESPACES = ("torch.cuda", "torch.utils.cpp_extension", "torch.backends.cuda.sdp_kernel",
                            "torch.autograd.profiler", "torch.profiler", "torch.jit.is_scripting")
ALLOWED_NN_CALLS = frozenset({"Parameter", "ParameterList", "ParameterDict", "Module", "ModuleList",
                              "ModuleDict", "init"})

# Tensor methods that compute (in-place variants are matched after stripping
# the trailing underscore).
COMPUTE_METHODS = frozenset("""
abs absolute acos add addbmm addcdiv addcmul addmm addmv addr all amax amin any argmax argmin
argsort asin atan atan2 baddbmm bmm ceil cholesky clamp clamp_max clamp_min clip conv1d conv2d
conv3d cos cosh cross cummax cummin cumprod cumsum diag diff digamma dist div divide dot eig
einsum elu eq erf erfc erfinv exp exp2 expm1 floor floor_divide fmax fmin fmod frac gather ge
gelu ger glu greater gt hardshrink hardsigmoid hardswish hardtanh heaviside histc hypot
index_add index_copy index_fill index_put index_select inner inverse isclose isfinite isinf isnan
kron kthvalue layer_norm le leaky_relu lerp less lgamma linalg log log10 log1p log2 log_softmax
logaddexp logcumsumexp logical_and logical_not logical_or logical_xor logit logsumexp lt lu
masked_fill masked_scatter masked_select matmul matrix_exp matrix_power max maximum mean median
min minimum mish mm mode mul multiply mv mvlgamma nan_to_num nanmean nanmedian nansum narrow_copy
ne neg negative norm normal numpy outer pinverse pow prelu prod put qr quantile reciprocal relu
relu6 remainder renorm roll round rrelu rsqrt scatter scatter_add scatter_reduce selu sgn sigmoid
sign silu sin sinc sinh slogdet softmax softplus softshrink sort sqrt square std sub subtract sum
svd tan tanh tensordot threshold topk trace trapz triangular_solve tril triu true_divide trunc
unique var vdot where xlogy
""".split())

FORBIDDEN_MODULES = {
    "threading": "threads can run work outside the timed window",
    "_thread": "threads can run work outside the timed window",
    "multiprocessing": "processes can run work outside the timed window",
    "concurrent": "executors can run work outside the timed window",
    "asyncio": "background tasks can run work outside the timed window",
    "ctypes": "raw memory access can read the judge's data or patch the runtime",
    "cffi": "raw memory access can read the judge's data or patch the runtime",
    "gc": "the garbage collector exposes other objects in the process",
    "inspect": "frame inspection exposes the harness's state",
    "socket": "no network access is allowed",
    "ssl": "no network access is allowed",
    "http": "no network access is allowed",
    "urllib": "no network access is allowed",
    "requests": "no network access is allowed",
    "subprocess": "spawning processes is not allowed",
    "signal": "signal handlers can interfere with the harness",
    "kbharness": "the harness must not be imported by a candidate",
    "importlib": "dynamic imports hide what the candidate runs",
    "builtins": "patching builtins interferes with the harness",
    "pickle": "pickle can execute arbitrary code",
    "marshal": "marshal can load arbitrary code objects",
    "shutil": "file system manipulation is not allowed",
    "tempfile": "file system manipulation is not allowed",
    "sys": "sys exposes the interpreter's modules and frames",
    "resource": "process limits are the harness's business",
    "mmap": "raw memory mapping is not allowed",
    "faulthandler": "interferes with crash reporting",
    "atexit": "exit hooks run outside the evaluation",
    "pty": "spawning processes is not allowed",
    "base64": "decoding hidden names or code is obfuscation",
    "binascii": "decoding hidden names or code is obfuscation",
    "codecs": "decoding hidden names or code is obfuscation",
    "zlib": "decoding hidden names or code is obfuscation",
    "lzma": "decoding hidden names or code is obfuscation",
    "bz2": "decoding hidden names or code is obfuscation",
    "queue": "queues feed work to background threads",
    "sched": "scheduled work runs outside the timed window",
    "ftplib": "no network access is allowed",
    "smtplib": "no network access is allowed",
    "telnetlib": "no network access is allowed",
    "xmlrpc": "no network access is allowed",
    "webbrowser": "no network access is allowed",
    "selectors": "no network access is allowed",
    "select": "no network access is allowed",
    "glob": "scanning the file system is not allowed",
    "fcntl": "file locks and descriptors are the harness's business",
    "posix": "raw os functions bypass the checks",
    "weakref": "weak references let the candidate track the harness's objects",
}
# Module names that are just as forbidden when reached as an attribute of
# another module (torch.utils.data.dataloader.threading, np.ctypeslib, ...).
FORBIDDEN_ATTR_SEGMENTS = frozenset(set(FORBIDDEN_MODULES) - {"resource", "select", "signal"} |
                                    {"multiprocessing", "ctypeslib"})
TENSOR_SUBCLASS_HOOKS = frozenset({"__torch_function__", "__torch_dispatch__"})
TENSOR_SUBCLASS_CALLS = frozenset({"as_subclass", "_make_subclass", "_make_wrapper_subclass"})
# Literal paths a kernel has no reason to read: process information (the
# judge's command line or environment), devices, system configuration.
PROBE_PATH_PREFIXES = ("/proc", "/dev/", "/sys", "/etc", "/root", "/home", "/run", "/var")
FORBIDDEN_OS_CALLS = frozenset({
    "system", "popen", "fork", "forkpty", "kill", "killpg", "execv", "execve", "execl", "execle",
    "execlp", "execlpe", "execvp", "execvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv",
    "spawnve", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp", "remove", "unlink", "rename",
    "getppid", "openpty", "pipe", "pipe2", "dup", "fdopen", "read", "pread", "readv", "lseek",
    "sched_setaffinity", "nice", "setpriority", "register_at_fork",
    "replace", "rmdir", "removedirs", "mkdir", "makedirs", "chmod", "chown", "symlink", "link",
    "truncate", "write", "putenv", "unsetenv", "setsid", "setpgid", "dup2", "_exit",
})
DYNAMIC_CODE = frozenset({"exec", "eval", "compile", "__import__", "execfile"})
SUSPICIOUS_BUILTINS = frozenset({"globals", "locals", "vars", "setattr", "delattr", "getattr"})
PATCHABLE_ROOTS = frozenset({"torch", "time", "kbharness", "numpy", "np", "math", "builtins", "sys",
                             "os", "random", "F", "nn", "functools", "timeit"})

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
# A token-pasting macro lets C++ spell any name the scan looks for.
CPP_PASTE = re.compile(r"##")


def _finding(rule, severity, node, message, line=None, col=None):
    if line is None:
        line = getattr(node, "lineno", 0) or 0
    if col is None:
        col = getattr(node, "col_offset", 0) or 0
    return Finding(rule, severity, int(line), int(col), message)


def _dotted(node):
    """Return 'a.b.c' for Name/Attribute chains, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class _Analyzer:
    def __init__(self, source, policy):
        self.source = source
        self.policy = dict(DEFAULT_POLICY)
        self.policy.update(policy or {})
        self.vendor_allowed = vendor_allowance(self.policy.get("allow_vendor_libraries"))
        self.findings = []
        self.aliases = {}          # local name -> qualified name ("F" -> "torch.nn.functional")
        self.functions = {}        # module-level function name -> FunctionDef
        self.classes = {}          # class name -> ClassDef
        self.ext_names = set()     # module-level names bound to load_inline()/load() results
        self.ext_funcs = set()     # module-level functions that call load_inline()/load()
        self.has_extension = False
        self._seen = set()

    # -- helpers ---------------------------------------------------------
    def add(self, *args, **kwargs):
        f = _finding(*args, **kwargs)
        key = (f.rule, f.line, f.col, f.message)
        if key not in self._seen:
            self._seen.add(key)
            self.findings.append(f)

    def qualify(self, node):
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
            return base + ("." + rest if rest else "")
        return dotted

    def is_extension_loader(self, call):
        q = self.qualify(call.func) or ""
        return q.endswith("cpp_extension.load_inline") or q.endswith("cpp_extension.load") or \
            q in ("load_inline",) or q.endswith(".load_inline")

    # -- passes ------------------------------------------------------------
    def run(self):
        try:
            tree = ast.parse(self.source)
        except SyntaxError as e:
            self.add("syntax-error", REJECT, None, "candidate does not parse: %s" % (e.msg,),
                     line=e.lineno or 0, col=(e.offset or 1) - 1)
            return self.findings
        self.tree = tree
        self.collect(tree)
        self.check_module(tree)
        model_new = self.classes.get("ModelNew")
        if model_new is None:
            self.add("missing-modelnew", REJECT, None, "candidate defines no class ModelNew")
        else:
            self.check_model_new(model_new)
        if not self.has_extension:
            # where the policy allows torch ops, an answer made of them is a legitimate one
            self.add("no-custom-kernel", INFO if self.policy.get("allow_torch_ops") else SUSPICIOUS, None,
                     "no torch.utils.cpp_extension.load_inline/load call: the candidate builds no kernel")
        self.check_cpp_sources(tree)
        self.findings.sort(key=lambda f: (f.line, f.col, f.rule))
        return self.findings

    def collect(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        self.aliases.setdefault(a.name.split(".")[0], a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.aliases[a.asname or a.name] = node.module + "." + a.name
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and self.is_extension_loader(node):
                self.has_extension = True
        for name, fn in self.functions.items():
            if any(isinstance(n, ast.Call) and self.is_extension_loader(n) for n in ast.walk(fn)):
                self.ext_funcs.add(name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    self.is_ext_call(node.value):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.ext_names.add(t.id)

    def is_ext_call(self, call):
        return self.is_extension_loader(call) or (
            isinstance(call.func, ast.Name) and call.func.id in self.ext_funcs)

    def check_module(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.check_import(node)
            elif isinstance(node, ast.Call):
                self.check_call_global(node)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                self.check_patch(node)
            elif isinstance(node, ast.ClassDef):
                for base in node.bases:
                    if _dotted(base) and _dotted(base).split(".")[-1] == "Model":
                        self.add("reference-model-use", REJECT, base,
                                 "class %s inherits from the reference Model" % node.name)
                    q = self.qualify(base) or ""
                    if q in ("torch.Tensor", "torch._C._TensorBase", "torch._tensor.Tensor") or \
                            q.endswith("._TensorBase"):
                        self.add("tensor-subclass", REJECT, base,
                                 "class %s subclasses torch.Tensor: a lazy or fake tensor can defer or "
                                 "skip the work" % node.name)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                            item.name in TENSOR_SUBCLASS_HOOKS:
                        self.add("tensor-subclass", REJECT, item,
                                 "%s.%s intercepts torch calls" % (node.name, item.name))
            elif isinstance(node, ast.Try):
                if any(isinstance(n, ast.Call) and self.is_extension_loader(n) for n in ast.walk(node)):
                    self.add("fallback-try-except", REJECT, node,
                             "try/except around the extension build: a failed build could fall back "
                             "to PyTorch")
            elif isinstance(node, ast.Global):
                self.add("global-state", SUSPICIOUS, node,
                         "'global %s' lets calls share state (output caching)" % ", ".join(node.names))
            elif isinstance(node, ast.Name) and node.id == "Model" and isinstance(node.ctx, ast.Load):
                self.add("reference-model-use", REJECT, node,
                         "the candidate refers to the reference Model")
            elif isinstance(node, ast.Attribute) and self.check_attribute_chain(node):
                pass
            elif isinstance(node, ast.Attribute) and node.attr in ("__globals__", "__code__",
                                                                   "__builtins__", "__subclasses__",
                                                                   "f_back", "f_globals", "f_locals",
                                                                   "gi_frame", "__closure__", "__self__",
                                                                   "__mro__", "__bases__", "__base__",
                                                                   "tb_frame", "cr_frame", "__reduce__",
                                                                   "__reduce_ex__", "__loader__", "__spec__"):
                self.add("introspection", REJECT, node,
                         "access to %s reaches into other code's state" % node.attr)

    def check_attribute_chain(self, node):
        """Forbidden modules reached through attributes; module __dict__ access;
        precision markers.  Returns True when a finding was added."""
        dotted = _dotted(node)
        if dotted is None:
            return False
        head = dotted.split(".")[0]
        q = self.qualify(node) or dotted
        parts = q.split(".")
        if head in self.aliases or head in PATCHABLE_ROOTS:
            for seg in parts[1:]:
                if seg in FORBIDDEN_ATTR_SEGMENTS:
                    self.add("forbidden-import", REJECT, node,
                             "%s reaches the %s module through an attribute: %s" %
                             (dotted, seg, FORBIDDEN_MODULES.get(seg, "not allowed")))
                    return True
            if node.attr == "__dict__":
                self.add("introspection", REJECT, node,
                         "%s exposes a module's namespace (monkey-patching)" % dotted)
                return True
            if q.startswith("torch.hub") or q.startswith("torch.distributed") or q.startswith("torch.package"):
                self.add("network", REJECT, node, "%s can download or communicate" % q)
                return True
            if q in ("torch.float16", "torch.half", "torch.bfloat16", "torch.autocast",
                     "torch.cuda.amp", "torch.cpu.amp") or q.startswith("torch.cuda.amp.") or \
                    q.startswith("torch.cpu.amp."):
                self.add("precision-downgrade", self.precision_severity(), node,
                         "%s: reduced precision in a %s task" % (q, self.policy.get("precision", "fp32")))
                return True
        return False

    def precision_severity(self):
        return INFO if str(self.policy.get("precision", "fp32")) in ("fp16", "bf16") else SUSPICIOUS

    def check_import(self, node):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif node.module:
            names = [node.module] if node.level == 0 else []
            if node.level == 0 and node.module == "os":
                for a in node.names:
                    if a.name in FORBIDDEN_OS_CALLS:
                        self.add("forbidden-call", REJECT, node, "imports os.%s" % a.name)
        for name in names:
            top = name.split(".")[0]
            if top in FORBIDDEN_MODULES:
                self.add("forbidden-import", REJECT, node,
                         "imports %s: %s" % (name, FORBIDDEN_MODULES[top]))
            if name.startswith("torch.multiprocessing") or name.startswith("torch._dynamo") or \
                    name.startswith("torch._inductor"):
                self.add("forbidden-import", REJECT, node, "imports %s" % name)

    def check_call_global(self, node):
        func = node.func
        q = self.qualify(func) or ""
        if isinstance(func, ast.Name):
            name = func.id
            if name in DYNAMIC_CODE and name not in self.functions:
                self.add("dynamic-code", REJECT, node, "%s() runs code the checker can't see" % name)
            elif name in SUSPICIOUS_BUILTINS and name not in self.functions:
                if name == "setattr" and node.args and (_root_name(node.args[0]) in PATCHABLE_ROOTS or
                                                        self.qualify(node.args[0]) in self.aliases.values()):
                    self.add("monkey-patch", REJECT, node, "setattr() on module %s" % _dotted(node.args[0]))
                elif name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                    self.check_getattr_constant(node)
                elif name == "getattr" and len(node.args) >= 2 and self.is_module_ref(node.args[0]):
                    self.add("dynamic-code", REJECT, node,
                             "getattr(%s, <computed name>) hides which function is called" %
                             _dotted(node.args[0]))
                else:
                    self.add("dynamic-code", SUSPICIOUS, node, "%s() hides what the candidate accesses" % name)
            elif name == "open" and name not in self.functions:
                self.check_open(node)
            elif name == "input" and name not in self.functions:
                self.add("file-read", REJECT, node, "input() reads the harness's standard input")
            elif name == "type" and len(node.args) == 3 and name not in self.functions:
                self.add("dynamic-code", SUSPICIOUS, node, "type() with three arguments creates a class at run "
                                                          "time (hidden subclasses)")
        if isinstance(func, ast.Attribute) and func.attr in TENSOR_SUBCLASS_CALLS:
            self.add("tensor-subclass", REJECT, node,
                     ".%s() makes a tensor subclass: a lazy or fake tensor can defer or skip the work" % func.attr)
        if q in ("os.listdir", "os.scandir", "os.walk", "os.fwalk") or (
                isinstance(func, ast.Attribute) and func.attr in ("glob", "rglob", "iterdir")):
            self.add("file-scan", SUSPICIOUS, node, "%s scans the file system" % (q or func.attr))
        if q in ("io.FileIO", "io.open_code", "torch.save", "numpy.save", "numpy.savez", "numpy.savetxt",
                 "np.save", "np.savez", "np.savetxt", "torch.jit.save", "os.mkfifo", "os.mknod") or (
                isinstance(func, ast.Attribute) and func.attr in ("tofile", "to_file")):
            self.add("file-write", REJECT, node, "%s writes to the file system" % (q or func.attr))
        if q.startswith("os.") and q.split(".")[1] in FORBIDDEN_OS_CALLS:
            self.add("forbidden-call", REJECT, node, "%s() is not allowed" % q)
        if q in ("io.open", "codecs.open", "os.open"):
            self.check_open(node, force=q == "os.open")
        if isinstance(func, ast.Attribute) and func.attr in ("write_text", "write_bytes", "unlink",
                                                              "rmdir", "touch", "mkdir", "rename",
                                                              "symlink_to", "chmod"):
            root = _root_name(func)
            if root not in self.ext_names:
                self.add("file-write", REJECT, node, ".%s() writes to the file system" % func.attr)
        if q.endswith("set_num_threads") or q.endswith("set_num_interop_threads") or \
                q.endswith("set_float32_matmul_precision") or q.endswith("use_deterministic_algorithms") or \
                q.endswith("set_flush_denormal") or q.endswith("set_default_dtype"):
            self.add("global-state", REJECT, node, "%s() changes global settings the harness controls" % q)
        if q.startswith("torch.cuda.set_per_process_memory_fraction") or q.startswith("torch.cuda.memory"):
            self.add("global-state", SUSPICIOUS, node, "%s() touches the device allocator" % q)
        if q.startswith("torch.cuda.graph") or q.startswith("torch.cuda.CUDAGraph") or \
                q.startswith("torch.cuda.make_graphed_callables") or q.startswith("torch.cuda.graphs"):
            self.add("cuda-graph", REJECT, node, "CUDA graph replay in the candidate: captured work can be "
                                                 "replayed instead of computed")
        if q.startswith("torch.cuda.Stream") or q.startswith("torch.cuda.stream") or \
                q.startswith("torch.cuda.ExternalStream") or q.startswith("torch.cuda.set_stream") or \
                q.startswith("torch.cuda.streams"):
            self.add("side-stream", REJECT, node, "%s: work on a side stream can escape the timed window" % q)
        if q.startswith("torch.cuda.cudart") or q.startswith("torch._C._cuda"):
            self.add("cuda-runtime-access", REJECT, node,
                     "%s calls the CUDA runtime directly (persisting-L2 limits, streams)" % q)
        if self.is_extension_loader(node):
            self.check_loader_flags(node)

    def is_module_ref(self, node):
        root = _root_name(node)
        return root is not None and (root in self.aliases or root in PATCHABLE_ROOTS) and \
            _dotted(node) is not None

    def check_getattr_constant(self, node):
        """getattr(torch, "relu") is torch.relu: report what the attribute form would get."""
        if not self.is_module_ref(node.args[0]) or not isinstance(node.args[1].value, str):
            return
        q = (self.qualify(node.args[0]) or "") + "." + node.args[1].value
        name = node.args[1].value
        if name in FORBIDDEN_MODULES or name in FORBIDDEN_ATTR_SEGMENTS:
            self.add("forbidden-import", REJECT, node, "getattr reaches the %s module" % name)
        elif name.startswith("__"):
            self.add("introspection", REJECT, node, "getattr(%s, %r) reaches interpreter internals" %
                     (_dotted(node.args[0]), name))
        elif not self.policy.get("allow_torch_ops") and (
                (q.startswith("torch.") and (name in COMPUTE_METHODS or q.startswith("torch.nn.functional.")
                                             or q.startswith("torch.ops") or q.startswith("torch.linalg")))
                or q.startswith("numpy.")):
            self.add("torch-op-in-forward", REJECT, node, "getattr hides a call of %s" % q)
        else:
            self.add("dynamic-code", SUSPICIOUS, node, "getattr(%s, %r) instead of an attribute" %
                     (_dotted(node.args[0]), name))

    def check_loader_flags(self, call):
        allowed = self.vendor_allowed
        for kw in call.keywords:
            if kw.arg not in ("extra_ldflags", "extra_cflags", "extra_cuda_cflags", "extra_include_paths"):
                continue
            for sub in ast.walk(kw.value):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    m = re.search(r"-l\s*(cublas\w*|cudnn\w*|cusparse\w*|cufft\w*|curand\w*|cusolver\w*|"
                                  r"mkl\w*|dnnl\w*|openblas\w*|blas\w*)", sub.value)
                    if m and _vendor_class(m.group(1)) not in allowed:
                        self.add("vendor-library", REJECT, sub,
                                 "links %s (vendor library) and the policy forbids it" % m.group(1))

    def check_open(self, node, force=False):
        mode = None
        if len(node.args) >= 2:
            mode = node.args[1]
        for kw in node.keywords:
            if kw.arg in ("mode", "flags"):
                mode = kw.value
        if force:
            self.add("file-write", REJECT, node, "os.open() with arbitrary flags")
            return
        path = node.args[0] if node.args else None
        if isinstance(path, ast.Constant) and isinstance(path.value, int):
            self.add("file-read", REJECT, node, "open() of file descriptor %d (the harness's stdio)" % path.value)
        elif isinstance(path, ast.Constant) and isinstance(path.value, str) and \
                path.value.startswith(PROBE_PATH_PREFIXES):
            self.add("file-read", REJECT, node, "open(%r) probes the system (the judge's command line, "
                                                "environment or devices)" % path.value)
        elif isinstance(path, (ast.JoinedStr, ast.BinOp)) and any(
                isinstance(c, ast.Constant) and isinstance(c.value, str) and
                (c.value.startswith(PROBE_PATH_PREFIXES) or "environ" in c.value or "cmdline" in c.value)
                for c in ast.walk(path)):
            self.add("file-read", REJECT, node, "open() of a /proc-style path probes the judge's process")
        if mode is None:
            return
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
            if any(c in mode.value for c in "wax+"):
                self.add("file-write", REJECT, node, "open(..., %r) writes to the file system" % mode.value)
        else:
            self.add("file-write", REJECT, node, "open() with a computed mode may write to the file system")

    def check_patch(self, node):
        if isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Assign):
            targets = node.targets
        else:
            targets = [node.target]
        flat = []
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)):
                flat.extend(t.elts)
            else:
                flat.append(t)
        for t in flat:
            if isinstance(t, (ast.Attribute, ast.Subscript)):
                root = _root_name(t)
                if root is None or root == "self":
                    continue
                qualified = self.aliases.get(root, root)
                top = qualified.split(".")[0]
                if root in PATCHABLE_ROOTS or root in self.aliases or top in PATCHABLE_ROOTS:
                    if root in self.ext_names:
                        continue
                    if (_dotted(t.value) if isinstance(t, ast.Subscript) else "") in ("os.environ",):
                        self.add("env-change", SUSPICIOUS, t, "the candidate changes os.environ")
                        continue
                    self.add("monkey-patch", REJECT, t,
                             "assignment to %s patches a module the harness relies on" %
                             (_dotted(t) or qualified + "[...]"))

    # -- ModelNew.forward and its helpers ---------------------------------
    def check_model_new(self, cls):
        methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        info = self.class_info(cls)
        forward = methods.get("forward")
        if forward is None:
            self.add("missing-forward", SUSPICIOUS, cls, "ModelNew defines no forward()")
            return
        self.visited = set()
        self.check_function(forward, cls, info, "ModelNew.forward")

    def class_info(self, cls):
        """Attributes assigned in __init__: kind 'ext', 'nn', 'sub:<Class>', 'param'."""
        info = {}
        for node in ast.walk(cls):
            if not isinstance(node, ast.Assign):
                continue
            for t in node.targets:
                if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                    continue
                v = node.value
                root = _root_name(v)
                if root in self.ext_names:
                    info[t.attr] = "ext"
                elif isinstance(v, ast.Call):
                    q = self.qualify(v.func) or ""
                    if self.is_ext_call(v):
                        info[t.attr] = "ext"
                    elif q.split(".")[-1] in ("Parameter", "Buffer"):
                        info[t.attr] = "param"
                    elif q.startswith("torch.nn.") or q.startswith("nn."):
                        info[t.attr] = "nn:" + q
                    elif isinstance(v.func, ast.Name) and v.func.id in self.classes:
                        info[t.attr] = "sub:" + v.func.id
        return info

    def check_function(self, fn, cls, info, where):
        key = (cls.name if cls is not None else "", fn.name)
        if key in self.visited:
            return
        self.visited.add(key)
        params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self"}
        local_ext = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and (_root_name(node.value) in self.ext_names or (
                    isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name) and
                    node.value.value.id == "self" and info.get(node.value.attr) == "ext")):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        local_ext.add(t.id)
        allow_ops = bool(self.policy.get("allow_torch_ops"))
        for node in ast.walk(fn):
            if isinstance(node, ast.Try):
                self.add("fallback-try-except", REJECT, node,
                         "try/except in %s: a failing kernel could fall back to PyTorch" % where)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                if not allow_ops:
                    self.add("torch-op-in-forward", REJECT, node, "'@' (matmul) in %s" % where)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div,
                                                                       ast.Pow, ast.FloorDiv, ast.Mod)):
                if not allow_ops and self._tensorish(node.left, params, info) or \
                        not allow_ops and self._tensorish(node.right, params, info):
                    self.add("torch-op-in-forward", SUSPICIOUS, node,
                             "arithmetic on a tensor argument in %s runs a PyTorch op" % where)
            elif isinstance(node, ast.Attribute) and node.attr in ("half", "bfloat16", "float16"):
                self.add("precision-downgrade", self.precision_severity(), node,
                         "%s uses reduced precision (%s)" % (where, node.attr))
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        self.add("state-in-forward", SUSPICIOUS, t,
                                 "%s stores self.%s between calls (output caching?)" % (where, t.attr))
            elif isinstance(node, ast.Call):
                self.check_forward_call(node, fn, cls, info, where, local_ext, allow_ops)

    def _tensorish(self, node, params, info):
        if isinstance(node, ast.Name) and node.id in params:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return info.get(node.attr) == "param"
        return False

    def check_forward_call(self, node, fn, cls, info, where, local_ext, allow_ops):
        func = node.func
        q = self.qualify(func) or ""
        root = _root_name(func)
        # helpers reachable from forward
        if isinstance(func, ast.Name) and func.id in self.functions:
            self.check_function(self.functions[func.id], None, {}, "helper %s()" % func.id)
            return
        if isinstance(func, ast.Name) and func.id in self.classes and func.id != "ModelNew":
            sub = self.classes[func.id]
            self.add("module-in-forward", SUSPICIOUS, node, "%s constructs %s in %s" % (where, func.id, where))
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and cls is not None:
            methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if func.attr in methods:
                self.check_function(methods[func.attr], cls, info, "%s.%s" % (cls.name, func.attr))
                return
            kind = info.get(func.attr, "")
            if kind.startswith("nn:") and not allow_ops:
                self.add("torch-op-in-forward", REJECT, node,
                         "%s calls self.%s, a %s: PyTorch computes it" % (where, func.attr, kind[3:]))
                return
            if kind.startswith("sub:"):
                sub = self.classes.get(kind[4:])
                if sub is not None:
                    sub_methods = {n.name: n for n in sub.body if isinstance(n, ast.FunctionDef)}
                    if "forward" in sub_methods:
                        self.check_function(sub_methods["forward"], sub, self.class_info(sub),
                                            "%s.forward" % sub.name)
                return
        # extension calls are the point (the receiver must be the module itself,
        # not the result of a call on it: ext.op(x).softmax() is a torch op)
        if (root in self.ext_names or root in local_ext) and _dotted(func) is not None:
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and \
                isinstance(func.value.value, ast.Name) and func.value.value.id == "self" and \
                info.get(func.value.attr) == "ext":
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and \
                info.get(func.attr) == "ext":
            return
        if allow_ops:
            return
        if q.startswith("torch.nn.functional.") or q.startswith("F."):
            self.add("torch-op-in-forward", REJECT, node, "%s calls %s" % (where, q))
            return
        if q.startswith("torch.ops.") or q.startswith("torch._C.") or q.startswith("torch._ops") or \
                q.startswith("torch.linalg.") or q.startswith("torch.fft.") or q.startswith("torch.special.") \
                or q.startswith("torch.sparse."):
            self.add("torch-op-in-forward", REJECT, node, "%s calls %s" % (where, q))
            return
        if q.startswith("torch.nn.") or q.startswith("nn."):
            name = q.split(".")[-1]
            if name not in ALLOWED_NN_CALLS and not q.startswith("torch.nn.init"):
                self.add("torch-op-in-forward", REJECT, node, "%s uses %s" % (where, q))
            return
        if q.startswith("torch.Tensor."):
            name = q.split(".")[-1].rstrip("_")
            if name in COMPUTE_METHODS:
                self.add("torch-op-in-forward", REJECT, node, "%s calls %s" % (where, q))
            return
        if q.startswith("torch."):
            if any(q.startswith(ns) for ns in ALLOWED_TORCH_NAMESPACES):
                return
            parts = q.split(".")
            if len(parts) == 2 and parts[1] in ALLOWED_TORCH_FUNCS:
                return
            if len(parts) >= 2 and parts[1] in ("autograd",):
                return
            self.add("torch-op-in-forward", REJECT, node, "%s calls %s" % (where, q))
            return
        if q.startswith("numpy.") or q.startswith("np.") or q.startswith("scipy."):
            self.add("torch-op-in-forward", REJECT, node, "%s computes with %s on the host" % (where, q))
            return
        if isinstance(func, ast.Attribute):
            name = func.attr.rstrip("_")
            if name in COMPUTE_METHODS and root not in ("math", "self") and root not in self.aliases:
                self.add("torch-op-in-forward", REJECT, node,
                         "%s calls tensor method .%s(): PyTorch computes it" % (where, func.attr))
            elif name in COMPUTE_METHODS and root == "self" and not isinstance(func.value, ast.Name):
                self.add("torch-op-in-forward", REJECT, node,
                         "%s calls .%s() on %s" % (where, func.attr, _dotted(func.value) or "a tensor"))
            elif func.attr in ("__call__", "forward") and root == "self":
                self.add("torch-op-in-forward", SUSPICIOUS, node, "%s calls %s" % (where, _dotted(func)))

    # -- C++ / CUDA sources ----------------------------------------------
    def check_cpp_sources(self, tree):
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            if not _looks_like_cpp(text):
                continue
            # a triple-quoted literal starting on the line of the opening quotes
            self.scan_cpp(text, node.lineno)

    def scan_cpp(self, text, base_line, where=""):
        """Scan one C++/CUDA text; `where` (a file name) prefixes the messages."""
        allow_ops = bool(self.policy.get("allow_torch_ops"))
        allowed = self.vendor_allowed
        prec_sev = self.precision_severity()
        before = len(self.findings)
        code = _strip_cpp_comments(text)
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
                    self.add("cpp-torch-op", REJECT, None,
                             "C++ source calls %s (a PyTorch compute op)" % m.group(0).rstrip("( "),
                             line=at, col=m.start())
                for m in CPP_COMPUTE_METHOD.finditer(line):
                    self.add("cpp-torch-op", REJECT, None,
                             "C++ source calls tensor method .%s() (a PyTorch compute op)" % m.group(1),
                             line=at, col=m.start())
            for m in CPP_VENDOR.finditer(line):
                if _vendor_class(m.group(1)) in allowed:
                    continue
                self.add("vendor-library", REJECT, None,
                         "C++ source uses %s (vendor library) and the policy (allow_vendor_libraries=%s) "
                         "forbids it" % (m.group(1), "+".join(sorted(allowed)) or "none"),
                         line=at, col=m.start())
            for m in CPP_THREAD.finditer(line):
                self.add("cpp-thread-or-stream", REJECT, None,
                         "C++ source uses %s: work can escape the timed window" %
                         m.group(1), line=at, col=m.start())
            for m in CPP_STREAM.finditer(line):
                self.add("side-stream", REJECT, None,
                         "C++ source uses %s: work on a side stream can escape the timed window" %
                         m.group(1), line=at, col=m.start())
            for m in CPP_GRAPH.finditer(line):
                self.add("cuda-graph", REJECT, None,
                         "C++ source uses %s: captured work can be replayed instead of computed" %
                         m.group(1), line=at, col=m.start())
            for m in CPP_L2.finditer(line):
                self.add("l2-persistence", REJECT, None,
                         "C++ source uses %s: persisting-L2 windows keep data cached across timed "
                         "calls" % m.group(1), line=at, col=m.start())
            for m in CPP_PRECISION.finditer(line):
                self.add("precision-downgrade", prec_sev, None,
                         "C++ source uses reduced precision (%s)" % m.group(1), line=at, col=m.start())
            for m in CPP_FILE_TYPES.finditer(line):
                self.add("cpp-system-call", REJECT, None,
                         "C++ source uses %s: kernels have no business with files" % m.group(1),
                         line=at, col=m.start())
            if CPP_PASTE.search(line):
                self.add("cpp-token-paste", SUSPICIOUS, None,
                         "token pasting (##) can spell names the scan looks for", line=at,
                         col=line.find("##"))
            for m in CPP_SYSCALL.finditer(line):
                self.add("cpp-system-call", REJECT, None,
                         "C++ source calls %s(), which a kernel has no business doing" % m.group(1),
                         line=at, col=m.start())

        if where:
            self.findings[before:] = [f._replace(message="%s: %s" % (where, f.message))
                                      for f in self.findings[before:]]


def _looks_like_cpp(text):
    if len(text) < 20:
        return False
    return "#include" in text or ("{" in text and ";" in text and ("(" in text))


def _strip_cpp_comments(text):
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


def analyze(candidate_source, policy=None):
    """Return the list of findings for a candidate's Python source."""
    return _Analyzer(candidate_source, policy).run()


WORKSPACE_MODULE = "model_new.py"
WORKSPACE_KERNELS = "kernels"
WORKSPACE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp")


def workspace_files(directory):
    """(model_new.py path, [kernel source paths]) of a workspace candidate, sorted."""
    kernels_dir = os.path.join(directory, WORKSPACE_KERNELS)
    kernels = []
    if os.path.isdir(kernels_dir):
        for name in sorted(os.listdir(kernels_dir)):
            path = os.path.join(kernels_dir, name)
            if os.path.isfile(path) and name.endswith(WORKSPACE_SUFFIXES):
                kernels.append(path)
    return os.path.join(directory, WORKSPACE_MODULE), kernels


def analyze_workspace(directory, policy=None):
    """Findings for a workspace candidate: model_new.py (as a KernelBench candidate, whose
    kernels come from the workspace's extension) and every file under kernels/."""
    module, kernels = workspace_files(directory)
    with open(module, "r", encoding="utf-8") as f:
        source = f.read()
    analyzer = _Analyzer(source, policy)
    analyzer.has_extension = True  # the harness builds kernels/ into the extension
    findings = analyzer.run()
    findings = [f for f in findings if f.rule != "no-custom-kernel"]
    if not any(k.endswith((".cu", ".cpp", ".cc")) for k in kernels):
        findings.append(Finding("no-custom-kernel", SUSPICIOUS, 0, 0,
                                "the workspace has no kernels/*.cu or kernels/*.cpp source"))
    for path in kernels:
        rel = os.path.join(WORKSPACE_KERNELS, os.path.basename(path))
        try:
            with open(path, "r", encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            findings.append(Finding("unreadable-source", REJECT, 0, 0, "%s cannot be read: %s" % (rel, e)))
            continue
        analyzer.findings = []
        analyzer._seen = set()
        analyzer.scan_cpp(text, 1, where=rel)
        findings.extend(analyzer.findings)
    return findings


def verdict_for(findings):
    """'invalid_candidate', 'rejected' or None (may proceed)."""
    rejects = [f for f in findings if f.severity == REJECT]
    if any(f.rule in INVALID_RULES for f in rejects):
        return "invalid_candidate"
    if rejects:
        return "rejected"
    return None


def to_json(findings):
    return [f._asdict() for f in findings]
