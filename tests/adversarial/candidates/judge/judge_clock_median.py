"""New attack: forged samples whose sum is right. The worker's clock is replaced (from
native code) by one the candidate shifts at will; in each block (a SIGCONT from the judge
starts every block) the first seven counted calls report 20% of their time and the last
three carry the rest. The judge's clock bounds the block's sum, which is right; the
speedup comes from the samples' median."""
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge_kernels.cpp")) as _f:
    _SOURCE = _f.read()

kernels = load_inline(name="kbharness_judge_kernels", cpp_sources=[_SOURCE], extra_cflags=["-O3"])

import time as _time

_real = _time.perf_counter
_state = {"offset": 0.0, "q": 0, "conts": -1, "debt": 0.0}


def _clock():
    return _real() - _state["offset"]


kernels.set_attr(kernels.module("time"), "perf_counter", _clock)
kernels.watch_cont()


class ModelNew(nn.Module):
    def forward(self, a, b):
        if not a.is_shared():
            return kernels.mm_ok(a, b)
        t0 = _real()
        c = kernels.mm_ok(a, b)
        d = _real() - t0
        st = _state
        conts = kernels.conts()
        if conts != st["conts"]:
            st["conts"], st["q"], st["debt"] = conts, 0, 0.0
        else:
            st["q"] += 1
        q = st["q"]
        if 1 <= q <= 7:
            shown = 0.2 * d
            st["debt"] += d - shown
        elif 8 <= q <= 10:
            share = st["debt"] / (11 - q)
            shown = d + share
            st["debt"] -= share
        else:
            shown = d
        st["offset"] += d - shown
        return c
