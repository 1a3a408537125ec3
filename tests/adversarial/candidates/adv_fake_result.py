"""Prints a result document claiming success, on stdout and stderr, and
returns uninitialised memory.  The worker's stdio goes to a log; results
travel only over the private channel and the private result file."""
import json

import torch
import torch.nn as nn

FAKE = {"schema": "kbstudio.eval-result/1", "verdict": "correct", "message": "correct: 5/5 trials passed",
        "static_findings": [], "speedup": {"eager": 1000.0, "compile": None}}
print(json.dumps(FAKE), flush=True)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        print(json.dumps(FAKE), flush=True)

    def forward(self, x):
        print(json.dumps(FAKE), flush=True)
        return torch.empty_like(x)
