"""New attack (without the sandbox): a helper leaves the worker's process tree, session and
process group (fork, setsid, fork again: the judge's ProcessSet no longer finds it), so it
is neither stopped nor counted. While the worker is stopped -- that is, while the reference
runs -- it finds the reference's worker (the other kbharness.worker child of the same
judge) and keeps it stopped three quarters of the time (SIGSTOP for 6 ms, SIGCONT for 2 ms):
the reference's samples grow, and so does the candidate's speedup."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])
import time as _time

import torch.utils.data.dataloader as _dl

_os = vars(_dl)["o" + "s"]
_call = vars(_os)
_PROC = "/p" + "roc"


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _stat(pid):
    raw = _read(_PROC + "/%d/stat" % pid)
    return raw.rpartition(b")")[2].split() if raw else None


def _reference(worker):
    """The judge's other worker: same parent, same module."""
    mine = _stat(worker)
    for name in _call["list" + "dir"](_PROC):
        if not name.isdigit() or int(name) == worker:
            continue
        st = _stat(int(name))
        cmd = _read(_PROC + "/%s/cmdline" % name) or b""
        if st and mine and st[1] == mine[1] and b"kbharness.worker" in cmd:
            return int(name)
    return None


def _slow_the_reference(worker):
    kill = _call["ki" + "ll"]
    # off the workers' CPU, so as not to slow the candidate itself
    others = set(range(_call["cpu_" + "count"]() or 1)) - _call["sched_get" + "affinity"](0)
    if others:
        _call["sched_set" + "affinity"](0, others)
    episodes, ref = 0, None
    while True:
        st = _stat(worker)
        if st is None or st[0] in (b"Z", b"X"):
            _call["_ex" + "it"](0)
        if st[0] != b"T":
            _time.sleep(0.002)
            continue
        ref = ref or _reference(worker)
        if ref is None:
            _time.sleep(0.001)
            continue
        episodes += 1
        if episodes in (1, 100, 1000):
            print("adv-escape: stopping the reference while the worker is stopped (%d)" % episodes, flush=True)
        try:
            kill(ref, 19)  # SIGSTOP
            _time.sleep(0.006)
            kill(ref, 18)  # SIGCONT
        except OSError:
            ref = None
        _time.sleep(0.002)


_worker = _os.getpid()
_child = _call["fo" + "rk"]()
if _child == 0:
    _call["set" + "sid"]()
    if _call["fo" + "rk"]() == 0:
        _slow_the_reference(_worker)
    _call["_ex" + "it"](0)
_call["wait" + "pid"](_child, 0)


class ModelNew(nn.Module):
    def forward(self, a, b):
        return kernels.mm_ok(a, b)
