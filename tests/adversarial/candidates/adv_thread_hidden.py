"""Computes the result in a background thread after forward returned.  The
threading module is reached through another module's namespace with a
computed name (only suspicious statically); the worker's thread check
rejects it at run time."""
import time as _time

import torch
import torch.nn as nn
import torch.utils.data.dataloader as _dl

_threads = vars(_dl)["thread" + "ing"]
_jobs = []


def _work():
    while True:
        if _jobs:
            x, out = _jobs.pop()
            torch.clamp(x, min=0, out=out)
        else:
            _time.sleep(0.0001)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        _threads.Thread(target=_work, daemon=True).start()

    def forward(self, x):
        out = torch.empty_like(x)
        _jobs.append((x, out))
        return out
