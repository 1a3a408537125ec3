"""The CPU budget of a worker, enforced rather than measured.

Measuring a candidate's parallelism from outside (CPU time over wall time, busy processors
of the machine) only sees what a free processor lets it see: on a loaded machine a helper
that does half of the work on another processor shows no more CPU time than an honest
kernel waiting for its slice, and a helper that exits before it is looked at leaves its CPU
time to nobody. So the budget is made physical instead:

- Every worker runs under a seccomp filter, installed before its first instruction (bwrap's
  ``--seccomp``, or ``prctl`` in the unsandboxed worker before ``exec``) and inherited by
  every process and thread it ever makes, that refuses ``sched_setaffinity`` (EPERM) and
  ``io_uring_setup`` (whose kernel threads can be pinned anywhere). Nothing in the
  worker's tree can ever widen the set of processors it may run on.
- Before each timed block, with every process of the worker stopped, the judge narrows the
  affinity of every task of every process (found from outside: procset.py) to the timing
  processors: as many as the evaluation's threads, the same for the candidate and the
  reference. A task made later inherits its maker's set.
- After each block the judge reads every task's allowed processors again
  (``Cpus_allowed_list``); one outside the budget means the filter was not in force, and the
  block is refused rather than counted.

The build (before timing) keeps every processor the worker was given; the filter does not
restrict it. Honest libraries that try to pin threads (OpenMP with OMP_PROC_BIND) get EPERM
and run unpinned inside the budget.
"""

import ctypes
import os
import platform
import struct
import tempfile

# seccomp(2) / filter.h constants
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JGE_K = 0x35
_BPF_RET_K = 0x06
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_EPERM = 1
_X32_BIT = 0x40000000
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

# architecture: (AUDIT_ARCH_*, {syscall: number}, whether the x32 ABI shares the arch)
_ARCHES = {
    "x86_64": (0xC000003E, {"sched_setaffinity": 203, "io_uring_setup": 425}, True),
    "aarch64": (0xC00000B7, {"sched_setaffinity": 122, "io_uring_setup": 425}, False),
}
DENIED = ("sched_setaffinity", "io_uring_setup")


def _insn(code, jt, jf, k):
    return struct.pack("=HBBI", code, jt, jf, k)


def filter_program(machine=None):
    """The classic-BPF seccomp program (bytes of ``struct sock_filter``), or None where the
    architecture is not known (then the budget is only measured)."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit, numbers, x32 = arch
    deny = _SECCOMP_RET_ERRNO | _EPERM
    body = []
    # every check jumps forward to the final "deny" on a match; instructions are counted from
    # the one after the jump
    checks = [numbers[name] for name in DENIED]
    n_checks = len(checks) + (1 if x32 else 0)
    # 0: load arch; 1: arch == ours ? next : deny (a foreign ABI, e.g. int 0x80, gets nothing)
    body.append(_insn(_BPF_LD_W_ABS, 0, 0, 4))
    body.append(_insn(_BPF_JEQ_K, 0, n_checks + 2, audit))
    body.append(_insn(_BPF_LD_W_ABS, 0, 0, 0))  # load the syscall number
    remaining = n_checks
    if x32:
        remaining -= 1
        body.append(_insn(_BPF_JGE_K, remaining + 1, 0, _X32_BIT))  # x32 calls: deny
    for nr in checks:
        remaining -= 1
        body.append(_insn(_BPF_JEQ_K, remaining + 1, 0, nr))
    body.append(_insn(_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW))
    body.append(_insn(_BPF_RET_K, 0, 0, deny))
    return b"".join(body)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install():
    """Install the filter in this process (no new privileges first, as seccomp requires
    without CAP_SYS_ADMIN). For a ``preexec_fn``: returns False where it cannot be done."""
    prog = filter_program()
    if prog is None:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(prog, len(prog))
    fprog = _SockFprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0


def bwrap_filter_file():
    """An open, inheritable file holding the program, for ``bwrap --seccomp FD``; the caller
    passes its descriptor to the child and closes it after the start. None where the
    architecture is not known."""
    prog = filter_program()
    if prog is None:
        return None
    f = tempfile.TemporaryFile()
    f.write(prog)
    f.flush()
    f.seek(0)
    os.set_inheritable(f.fileno(), True)
    return f


def timing_cpus(pool, threads, salt=0):
    """The processors a side is timed on: ``threads`` of ``pool`` (the workers' processors),
    chosen by ``salt`` so that concurrent evaluations spread over a large machine; the
    candidate and the reference get the same ones. None where there is no pool."""
    if not pool:
        return None
    cpus = sorted(pool)
    n = max(1, min(int(threads), len(cpus)))
    start = salt % len(cpus)
    return set((cpus * 2)[start:start + n])


def _tasks(pid):
    try:
        return [int(t) for t in os.listdir("/proc/%d/task" % pid) if t.isdigit()]
    except OSError:
        return []


def narrow(procs, cpus):
    """Every task of every process of ``procs`` (a procset.ProcessSet, stopped) may run on
    ``cpus`` only. Returns the number of tasks narrowed."""
    n = 0
    for pid in procs.members():
        for tid in _tasks(pid):
            try:
                os.sched_setaffinity(tid, cpus)
                n += 1
            except OSError:
                pass  # exited, or a zombie
    return n


def _allowed(pid, tid):
    """The processors task ``tid`` may run on; None for a task that can no longer run (a
    zombie or a dead task keeps the set it had, but runs nothing) or is gone."""
    allowed, state = None, None
    try:
        with open("/proc/%d/task/%d/status" % (pid, tid)) as f:
            for line in f:
                if line.startswith("State:"):
                    state = line.split(":", 1)[1].strip()[:1]
                elif line.startswith("Cpus_allowed_list:"):
                    allowed = parse_cpu_list(line.split(":", 1)[1])
    except OSError:
        return None
    return None if state in ("Z", "X") else allowed


def parse_cpu_list(text):
    """'0-3,8,10-11' -> {0, 1, 2, 3, 8, 10, 11}."""
    out = set()
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.update(range(int(lo), int(hi) + 1))
        else:
            out.add(int(part))
    return out


def outside(procs, cpus):
    """Tasks of ``procs`` allowed to run outside ``cpus``: [(pid, tid, allowed set)]."""
    found = []
    for pid in procs.members():
        for tid in _tasks(pid):
            allowed = _allowed(pid, tid)
            if allowed is not None and not allowed <= set(cpus):
                found.append((pid, tid, allowed))
    return found


def filtered(pid):
    """Whether process ``pid`` runs under a seccomp filter (``Seccomp: 2`` in its status)."""
    if not pid:
        return False
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Seccomp:"):
                    return line.split(":", 1)[1].strip() == "2"
    except OSError:
        return False
    return False
