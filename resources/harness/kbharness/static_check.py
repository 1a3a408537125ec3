"""Static checks of a candidate solution: the entry points.

``analyze(source, policy)`` returns a list of :class:`Finding`.  Severity
``reject`` means the candidate is not built or run; ``suspicious`` marks it
for review; ``info`` is just recorded.  Every rule, its severity and the test
that covers it are in rules.py.

The checker looks at (pycheck.py, cppscan.py):
  * ``ModelNew.forward`` and every helper reachable from it (module-level
    functions called by name, ``self.method(...)`` calls, ``forward`` of
    candidate-defined submodules) for PyTorch compute ops;
  * the whole module for uses of the reference ``Model``, fallbacks,
    monkey-patching, forbidden imports, dynamic code and file writes;
  * the C++/CUDA sources (string literals) for ``torch::``/``at::`` compute
    calls, threads and vendor libraries.
"""

import os
from typing import Any, Dict, List, Optional, Tuple

from . import rules
from .cppscan import VENDOR_CLASSES, vendor_allowance  # noqa: F401 (part of this module's interface)
from .pycheck import DEFAULT_POLICY, PythonChecker  # noqa: F401 (part of this module's interface)
from .rules import INFO, REJECT, SUSPICIOUS, Finding  # noqa: F401 (part of this module's interface)

# Rules whose findings make the candidate "invalid" rather than "rejected".
INVALID_RULES = frozenset({"syntax-error", "missing-modelnew"})


def analyze(candidate_source: str, policy: Optional[Dict[str, Any]] = None) -> List[Finding]:
    """Return the list of findings for a candidate's Python source."""
    return PythonChecker(candidate_source, policy).run()


WORKSPACE_MODULE = "model_new.py"
WORKSPACE_KERNELS = "kernels"
WORKSPACE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp")


def workspace_files(directory: str) -> Tuple[str, List[str]]:
    """(model_new.py path, [kernel source paths]) of a workspace candidate, sorted."""
    kernels_dir = os.path.join(directory, WORKSPACE_KERNELS)
    kernels = []
    if os.path.isdir(kernels_dir):
        for name in sorted(os.listdir(kernels_dir)):
            path = os.path.join(kernels_dir, name)
            if os.path.isfile(path) and name.endswith(WORKSPACE_SUFFIXES):
                kernels.append(path)
    return os.path.join(directory, WORKSPACE_MODULE), kernels


def analyze_workspace(directory: str, policy: Optional[Dict[str, Any]] = None) -> List[Finding]:
    """Findings for a workspace candidate: model_new.py (as a KernelBench candidate, whose
    kernels come from the workspace's extension) and every file under kernels/."""
    module, kernels = workspace_files(directory)
    with open(module, "r", encoding="utf-8") as f:
        source = f.read()
    analyzer = PythonChecker(source, policy)
    analyzer.has_extension = True  # the harness builds kernels/ into the extension
    findings = analyzer.run()
    findings = [f for f in findings if f.rule != "no-custom-kernel"]
    if not any(k.endswith((".cu", ".cpp", ".cc")) for k in kernels):
        findings.append(Finding("no-custom-kernel", rules.severity("no-custom-kernel"), 0, 0,
                                "the workspace has no kernels/*.cu or kernels/*.cpp source"))
    for path in kernels:
        rel = os.path.join(WORKSPACE_KERNELS, os.path.basename(path))
        try:
            with open(path, "r", encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            findings.append(Finding("unreadable-source", rules.severity("unreadable-source"), 0, 0,
                                    "%s cannot be read: %s" % (rel, e)))
            continue
        analyzer.findings = []
        analyzer._seen = set()
        analyzer.scan_cpp(text, 1, where=rel)
        findings.extend(analyzer.findings)
    return findings


def verdict_for(findings: List[Finding]) -> Optional[str]:
    """'invalid_candidate', 'rejected' or None (may proceed)."""
    rejects = [f for f in findings if f.severity == REJECT]
    if any(f.rule in INVALID_RULES for f in rejects):
        return "invalid_candidate"
    if rejects:
        return "rejected"
    return None


def to_json(findings: List[Finding]) -> List[Dict[str, Any]]:
    return [f._asdict() for f in findings]
