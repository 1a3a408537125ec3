"""What the Python rules look for (pycheck.py): the torch calls that compute nothing the
task asks for, the tensor methods that compute, forbidden modules and os calls, dynamic code,
and the module roots whose attributes must not be patched."""

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
