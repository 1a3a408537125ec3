"""What a built extension library reaches outside itself, read from the library the judge
built: the names its dynamic symbol table imports (as the linker resolved them, however the
source spelt them: a ``using namespace``, a macro, token pasting, a wrapper) and the system
call instructions in its machine code.

The C++ scan (cppscan.py) reads the source's names; this check reads what the binary calls,
so ``using namespace at; matmul(a, b)`` is ``at::_ops::matmul::call`` here, and a thread is
``pthread_create`` whatever wrapped it. The families are the C++ scan's, under its rule ids:
ATen compute ops (every ATen op is dispatched through ``at::_ops::<op>::call``), vendor
libraries, threads and host callbacks, side streams (also the per-thread default stream's
``_ptsz`` entry points), CUDA graphs, persisting-L2 windows, and processes, files, signals,
dynamic loading and memory protection. A ``syscall`` instruction in the library's own code
is a system call no import shows.

What it cannot see: code that finds a function's address at run time without importing it
(walking the C library's symbol table in memory) and calls through the pointer. The
runtime defences (the judge-owned timing, the stop and hold, the processors held to the
task; README "Judge-owned timing") do not depend on this check."""

import os
import re
import shutil
import subprocess
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

from . import rules
from .cppscan import vendor_class
from .rules import Finding
from .vocabulary import COMPUTE_METHODS

# ATen ops that compute, beyond the tensor methods' list: the operators behind nn.functional
# and the fused/private variants (matched after leading underscores are dropped, by name or
# by name + "_" + overload: ``add_Tensor``, ``mm_out``, ``relu_``).
ATEN_COMPUTE = frozenset(COMPUTE_METHODS | set("""
convolution conv_transpose1d conv_transpose2d conv_transpose3d cudnn_convolution conv_tbc linear bilinear
batch_norm native_batch_norm batch_norm_impl_index group_norm native_group_norm instance_norm
native_layer_norm rms_norm embedding embedding_bag avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d
adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d adaptive_max_pool3d
max_pool1d max_pool2d max_pool3d scaled_dot_product_attention scaled_dot_product_flash_attention
scaled_dot_product_efficient_attention scaled_dot_product_cudnn_attention flash_attention_forward
efficient_attention_forward lstm gru rnn_tanh rnn_relu lstm_cell gru_cell upsample_nearest1d
upsample_nearest2d upsample_nearest3d upsample_bilinear2d upsample_bicubic2d upsample_trilinear3d
upsample_linear1d mse_loss l1_loss smooth_l1_loss huber_loss nll_loss nll_loss2d cross_entropy_loss
kl_div binary_cross_entropy binary_cross_entropy_with_logits hinge_embedding_loss cosine_similarity
cosine_embedding_loss pairwise_distance cdist cdist_forward triplet_margin_loss margin_ranking_loss
log_sigmoid log_sigmoid_forward celu addmm_activation special linalg fft sparse_mm baddbmm
""".split()))

# plain C symbols, by family (versions such as @GLIBC_2.34 are dropped first)
THREADS = frozenset("""
pthread_create thrd_create clone clone3 fork vfork daemon setsid posix_spawn posix_spawnp timer_create
cudaLaunchHostFunc cudaStreamAddCallback cuLaunchHostFunc cuStreamAddCallback
""".split())
SYSTEM = frozenset("""
system popen execv execve execvp execvpe execl execle execlp fexecve dlopen dlmopen dlsym dlvsym
syscall ptrace prctl kill tgkill tkill sigqueue sigaction signal setrlimit prlimit prlimit64 mprotect
pkey_mprotect mmap mmap64 mremap process_vm_readv process_vm_writev socket connect bind sendto sendmsg
open open64 openat openat64 creat creat64 fopen fopen64 freopen freopen64 unlink unlinkat rename renameat
sched_setaffinity pthread_setaffinity_np setpriority shm_open memfd_create pidfd_open pidfd_send_signal
seccomp unshare setns chdir chroot
""".split())
STREAMS = re.compile(r"^(cudaStreamCreate\w*|cuStreamCreate\w*|\w+_pt(sz|ds))$")
GRAPHS = re.compile(r"^(cudaGraph\w*|cudaStreamBeginCapture\w*|cudaStreamEndCapture|cuGraph\w*|"
                    r"cuStreamBeginCapture\w*|cuStreamEndCapture)$")
L2 = frozenset("cudaStreamSetAttribute cudaDeviceSetLimit cudaCtxResetPersistingL2Cache cuCtxSetLimit "
               "cuStreamSetAttribute cuCtxResetPersistingL2Cache".split())
VENDOR = re.compile(r"^(cublas\w*|cublasLt\w*|cudnn\w*|cusparse\w*|cufft\w*|curand\w*|cusolver\w*|mkl_\w+|"
                    r"cblas_\w+|dnnl_\w+)$")
# Python C API that runs Python source or hooks the interpreter from native code. Only entry
# points no extension's boilerplate uses: pybind11 itself imports modules, reads frames and
# calls Python objects (PyImport_ImportModule, PyEval_GetBuiltins, PyObject_CallObject,
# PyFrame_GetBack), so a way back into the interpreter through those cannot be told from an
# honest build by its imports (README, "Library check": what it cannot see).
PYTHON_ENTRY = re.compile(r"^(PyRun_\w+|Py_CompileString\w*|PyEval_EvalCode\w*|PyEval_SetTrace|"
                          r"PyEval_SetProfile\w*|PyEval_SetTraceAllThreads|PySys_SetObject|"
                          r"PyFrame_LocalsToFast|PyFrame_FastToLocals\w*)$")

# demangled C++ names, by family
CXX_ATEN_OP = re.compile(r"^at::_ops::(\w+)::(?:call|redispatch)\(")
CXX_ATEN_KERNEL = re.compile(r"^at::(?:native|cpu|cuda|meta|compositeexplicitautograd|"
                             r"compositeexplicitautogradnonfunctional|compositeimplicitautograd)::(\w+)\(")
CXX_BY_NAME = re.compile(r"^(c10::Dispatcher::find\w*|c10::Dispatcher::callBoxed|c10::OperatorHandle::\w*|"
                         r"torch::jit::\w+|torch::dynamo::\w+)")
CXX_THREADS = re.compile(r"^(std::thread::_M_start_thread|std::jthread|at::launch\b|at::intraop_launch|"
                         r"c10::ThreadPool::run|at::get_thread_pool|c10::TaskThreadPoolBase::\w+)")
CXX_FILES = re.compile(r"^(std::(?:__cxx11::)?basic_(?:i|o)?fstream|std::(?:__cxx11::)?basic_filebuf|"
                       r"std::filesystem::|at::from_file|torch::load|torch::save|torch::serialize::)")
# (c10::cuda::getStreamFromPool is not a finding: CUDAGuard's implementation, defined in the
# headers, takes streams from the pool in virtual functions every guard's vtable carries)
CXX_STREAMS = re.compile(r"^at::cuda::getStreamFromPool")
CXX_GRAPHS = re.compile(r"^at::cuda::CUDAGraph::")
CXX_VENDOR = re.compile(r"^(at::cuda::getCurrentCUDABlas\w*Handle|at::cuda::blas::|at::native::cpublas::|"
                        r"at::native::cudnn\w*|at::cuda::getCudnnHandle)")

SYSCALL_INSN = re.compile(r"\t(syscall|sysenter|int\s+\$0x80)\s*$")


def is_compute_op(name: str) -> bool:
    base = name.lstrip("_")
    if base in ATEN_COMPUTE:
        return True
    head = base
    while "_" in head:
        head = head.rsplit("_", 1)[0]
        if head in ATEN_COMPUTE:
            return True
    return False


def classify(symbol: str, allow_ops: bool, vendor_allowed) -> Optional[Tuple[str, str]]:
    """(rule, message) for one imported name (demangled, version dropped), or None."""
    if symbol in THREADS:
        return "cpp-thread-or-stream", "imports %s: work can escape the timed window" % symbol
    if symbol in SYSTEM:
        return "cpp-system-call", "imports %s(), which a kernel has no business calling" % symbol
    if STREAMS.match(symbol) or CXX_STREAMS.match(symbol):
        return "side-stream", "imports %s: work on another stream can escape the timed window" % symbol
    if GRAPHS.match(symbol) or CXX_GRAPHS.match(symbol):
        return "cuda-graph", "imports %s: captured work can be replayed instead of computed" % symbol
    if symbol in L2:
        return "l2-persistence", "imports %s: persisting-L2 windows keep data cached across calls" % symbol
    if PYTHON_ENTRY.match(symbol):
        return "cpp-system-call", "imports %s: native code that runs Python can reach the harness" % symbol
    m = VENDOR.match(symbol) or CXX_VENDOR.match(symbol)
    if m:
        cls = "gemm" if ("blas" in symbol.lower() or symbol.startswith("cublas")) else vendor_class(symbol)
        if cls in vendor_allowed:
            return None
        return "vendor-library", "imports %s (vendor library), which the policy (allow_vendor_libraries=%s) " \
            "forbids" % (_short(symbol), "+".join(sorted(vendor_allowed)) or "none")
    if CXX_THREADS.match(symbol):
        return "cpp-thread-or-stream", "imports %s: work can escape the timed window" % _short(symbol)
    if CXX_FILES.match(symbol):
        return "cpp-system-call", "imports %s: kernels have no business with files" % _short(symbol)
    if allow_ops:
        return None
    if CXX_BY_NAME.match(symbol):
        return "cpp-torch-op", "imports %s: PyTorch operators reached by name" % _short(symbol)
    m = CXX_ATEN_OP.match(symbol) or CXX_ATEN_KERNEL.match(symbol)
    if m and is_compute_op(m.group(1)):
        return "cpp-torch-op", "calls ATen %s (%s): PyTorch computes it, not a kernel of the candidate's" % (
            m.group(1), _short(symbol))
    return None


def _short(symbol: str) -> str:
    return symbol.split("(", 1)[0]


def _output(tool: str, given: Optional[str], args: List[str], path: str, timeout: float) -> str:
    """What binutils' ``tool`` (or the ``given`` program) prints for ``path``."""
    program = given or shutil.which(tool)
    if not program:
        raise ToolMissing("%s (binutils) is not installed" % tool)
    proc = _run([program] + args + [path], timeout)
    if proc.returncode != 0:
        raise ToolMissing("%s could not read %s: %s" % (tool, path, proc.stderr.strip()[:200]))
    return proc.stdout


def imported_names(path: str, nm: Optional[str] = None) -> List[str]:
    """The undefined dynamic symbols of a shared library, demangled, versions dropped."""
    names = []
    for line in _output("nm", nm, ["-D", "--undefined-only", "-C"], path, 60).splitlines():
        line = line.strip()
        if not line:
            continue
        # "U name@VERSION" / "w name"; demangled names contain spaces
        name = line.split(None, 1)[1] if line[:2] in ("U ", "w ", "v ") else line
        names.append(re.sub(r"@@?[\w.]+$", "", name).strip())
    return names


def system_call_instructions(path: str, objdump: Optional[str] = None) -> List[str]:
    """The functions of the library's own code that hold a system call instruction."""
    text = _output("objdump", objdump, ["-d", "--no-show-raw-insn", "-C"], path, 120)
    where, current = [], "?"
    for line in text.splitlines():
        if line.endswith(">:"):
            current = line[line.find("<") + 1:-2]
        elif SYSCALL_INSN.search(line) and current not in where:
            where.append(current)
    return where


class ToolMissing(Exception):
    """A tool the check needs is missing or failed: the library is not checked (and the
    result says so)."""


def _run(command, timeout):
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolMissing("%s: %s" % (os.path.basename(command[0]), e))


def check_library(path: str, allow_ops: bool, vendor_allowed,
                  names: Optional[Callable[[str], Iterable[str]]] = None,
                  instructions: Optional[Callable[[str], Sequence[str]]] = None) -> List[Finding]:
    """The findings for one built library; line 0 (no source location)."""
    label = path.rsplit("/", 1)[-1]
    out, seen = [], set()
    for symbol in (names or imported_names)(path):
        hit = classify(symbol, allow_ops, vendor_allowed)
        if hit and hit not in seen:
            seen.add(hit)
            out.append(Finding(hit[0], rules.severity(hit[0]), 0, 0, "the built library %s %s" % (label, hit[1])))
    for func in (instructions or system_call_instructions)(path):
        out.append(Finding("cpp-system-call", rules.severity("cpp-system-call"), 0, 0,
                           "the built library %s makes a system call itself (a syscall instruction in %s)" %
                           (label, func)))
    return out
