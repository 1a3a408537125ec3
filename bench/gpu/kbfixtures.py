"""Where the GPU fixtures and the KernelBench problems they solve live."""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "gpu", "fixtures")
HARNESS = os.path.join(REPO, "resources", "harness")
DEFAULT_KB_ROOT = os.path.join(REPO, "..", "shared", "kernelbench")
_KB_PREFIX = "../shared/kernelbench/"


def problem_path(entry, kb_root):
    """The KernelBench problem of a manifest entry, found under kb_root."""
    rel = entry["problem"]
    if rel.startswith(_KB_PREFIX):
        return os.path.join(os.path.abspath(kb_root), rel[len(_KB_PREFIX):])
    return os.path.normpath(os.path.join(REPO, rel))


def manifest():
    """Manifest entries by file name."""
    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        return {e["file"]: e for e in json.load(f)["fixtures"]}
