"""Every rule the harness reports, in one table: its id, its severity, why it exists and the
test that covers it.

Static findings (static_check.py) and detections made while running (evaluate.py) look
their severity up here. A rule with a ``lesser`` severity reports that one for weaker
evidence or where the policy relaxes it (arithmetic on a tensor argument rather than a
torch call; reduced precision in an fp16/bf16 task). ``test`` names a unittest as
``<tests folder>.<module>.<Class>.<test>`` (tests/harness/test_rules.py checks that each
exists and that README.md names every rule).
"""

from collections import namedtuple
from dataclasses import dataclass
from typing import Dict, Optional

REJECT = "reject"
SUSPICIOUS = "suspicious"
INFO = "info"

# One finding: rule id, severity, source line and column (0 = no source location), message.
Finding = namedtuple("Finding", "rule severity line col message")


@dataclass(frozen=True)
class Rule:
    name: str
    severity: str
    rationale: str
    test: str
    lesser: Optional[str] = None


_STATIC = "harness.test_static_check."
_PARTS = "harness.test_judge_parts."
_ADV = "adversarial.test_adversarial."
_JUDGE = "adversarial.test_judge_integrity."

RULES = (
    # -- static: the Python source -------------------------------------------------------
    Rule("syntax-error", REJECT, "a file that does not parse cannot be checked or run (invalid_candidate)",
         _STATIC + "IntegrityRuleTests.test_syntax_error_and_missing_modelnew_are_invalid"),
    Rule("missing-modelnew", REJECT, "without ModelNew there is nothing to evaluate (invalid_candidate)",
         _STATIC + "IntegrityRuleTests.test_syntax_error_and_missing_modelnew_are_invalid"),
    Rule("missing-forward", SUSPICIOUS, "a ModelNew without forward() computes nothing of its own",
         _STATIC + "HardeningRuleTests.test_suspicious_structure"),
    Rule("torch-op-in-forward", REJECT, "PyTorch computing the answer is not a custom kernel",
         _STATIC + "TorchOpRuleTests.test_torch_functions", lesser=SUSPICIOUS),
    Rule("reference-model-use", REJECT, "the reference Model computes the expected answer itself",
         _STATIC + "IntegrityRuleTests.test_reference_model"),
    Rule("fallback-try-except", REJECT, "a failing kernel or build could fall back to PyTorch",
         _STATIC + "IntegrityRuleTests.test_fallback"),
    Rule("monkey-patch", REJECT, "patched torch, time or harness functions can fake results or timings",
         _STATIC + "IntegrityRuleTests.test_monkey_patching"),
    Rule("forbidden-import", REJECT, "threads, processes, raw memory, the network or obfuscation",
         _STATIC + "IntegrityRuleTests.test_forbidden_imports"),
    Rule("forbidden-call", REJECT, "os calls that spawn, signal, read descriptors or change files",
         _STATIC + "IntegrityRuleTests.test_forbidden_imports"),
    Rule("dynamic-code", REJECT, "code built at run time hides what the candidate runs",
         _STATIC + "IntegrityRuleTests.test_dynamic_code", lesser=SUSPICIOUS),
    Rule("file-write", REJECT, "a written file could fake a result or reach other attempts",
         _STATIC + "IntegrityRuleTests.test_file_writes"),
    Rule("global-state", REJECT, "global settings (threads, matmul precision) are the harness's",
         _STATIC + "IntegrityRuleTests.test_global_settings", lesser=SUSPICIOUS),
    Rule("introspection", REJECT, "frames, globals and module namespaces reach other code's state",
         _STATIC + "HardeningRuleTests.test_forbidden_modules_through_attributes"),
    Rule("precision-downgrade", SUSPICIOUS, "arithmetic below the task's precision is faster and less exact",
         _STATIC + "HardeningRuleTests.test_precision_everywhere", lesser=INFO),
    Rule("tensor-subclass", REJECT, "a lazy or fake tensor can defer or skip the work",
         _STATIC + "HardeningRuleTests.test_tensor_subclasses"),
    Rule("side-stream", REJECT, "work on a side stream can escape the timed window",
         _STATIC + "HardeningRuleTests.test_streams_graphs_and_runtime"),
    Rule("cuda-graph", REJECT, "captured work can be replayed instead of computed",
         _STATIC + "HardeningRuleTests.test_streams_graphs_and_runtime"),
    Rule("cuda-runtime-access", REJECT, "the CUDA runtime sets persisting-L2 limits and streams",
         _STATIC + "HardeningRuleTests.test_streams_graphs_and_runtime"),
    Rule("file-read", REJECT, "/proc, devices, system files or stdin can leak the secret seed",
         _STATIC + "HardeningRuleTests.test_seed_probes_and_files"),
    Rule("file-scan", SUSPICIOUS, "a kernel has no reason to list folders",
         _STATIC + "HardeningRuleTests.test_seed_probes_and_files"),
    Rule("network", REJECT, "torch.hub, torch.distributed and torch.package download or communicate",
         _STATIC + "HardeningRuleTests.test_forbidden_modules_through_attributes"),
    Rule("state-in-forward", SUSPICIOUS, "state kept between calls can cache outputs",
         _STATIC + "HardeningRuleTests.test_suspicious_structure"),
    Rule("env-change", SUSPICIOUS, "environment variables steer libraries the harness relies on",
         _STATIC + "HardeningRuleTests.test_suspicious_structure"),
    Rule("module-in-forward", SUSPICIOUS, "a module built in forward may hide PyTorch compute",
         _STATIC + "HardeningRuleTests.test_suspicious_structure"),
    Rule("no-custom-kernel", SUSPICIOUS, "a candidate that builds no kernel only rearranges PyTorch",
         _STATIC + "IntegrityRuleTests.test_no_kernel_is_only_suspicious", lesser=INFO),
    Rule("unreadable-source", REJECT, "a kernel file the check cannot read cannot be checked",
         _STATIC + "IntegrityRuleTests.test_unreadable_kernel_file"),
    # -- static: the C++/CUDA sources --------------------------------------------------------
    Rule("cpp-torch-op", REJECT, "ATen compute called from C++ is PyTorch, not a custom kernel",
         _STATIC + "CppScanTests.test_torch_compute_calls"),
    Rule("vendor-library", REJECT, "cuBLAS, cuDNN and the like only where the policy allows them",
         _STATIC + "CppScanTests.test_tensor_methods_threads_vendor"),
    Rule("cpp-thread-or-stream", REJECT, "threads and host callbacks run work outside the timed window",
         _STATIC + "CppScanTests.test_tensor_methods_threads_vendor"),
    Rule("cpp-system-call", REJECT, "processes, files, sockets and memory protection are no kernel's business",
         _STATIC + "HardeningRuleTests.test_cpp_streams_graphs_l2_files"),
    Rule("l2-persistence", REJECT, "persisting-L2 windows keep data cached across timed calls",
         _STATIC + "HardeningRuleTests.test_cpp_streams_graphs_l2_files"),
    Rule("cpp-token-paste", SUSPICIOUS, "token pasting can spell any name the scan looks for",
         _STATIC + "HardeningRuleTests.test_cpp_streams_graphs_l2_files"),
    # -- found while running --------------------------------------------------------------
    Rule("runtime-unmeasured-work", REJECT, "the judge's clock saw work the candidate's samples leave out",
         _JUDGE + "JudgeDesignTests.test_forged_samples_with_the_right_sum"),
    Rule("runtime-background-thread", REJECT, "a Python thread left running works outside the timed window",
         _ADV + "RuntimePythonTests.test_background_thread_hidden"),
    Rule("runtime-hidden-parallelism", REJECT, "CPU work beyond the thread budget is hidden parallelism",
         _JUDGE + "CpuBudgetTests.test_4_hidden_parallelism_thread"),
    Rule("runtime-escaped-stop", REJECT, "a candidate that resumes itself can slow the reference down",
         _JUDGE + "StopTests.test_helpers_that_resume_themselves_are_rejected"),
    Rule("runtime-gpu-busy-after-return", REJECT, "a kernel left running after the call returned",
         _PARTS + "QuietGpuTests.test_a_gpu_that_stays_busy_is_reported"),
    Rule("runtime-precision-downgrade", SUSPICIOUS, "the output carries the error of arithmetic below float32",
         _PARTS + "PrecisionProbeTests.test_tf32_inputs_are_flagged"),
    Rule("runtime-below-roofline", SUSPICIOUS, "faster than reading the inputs and writing the outputs allows",
         _ADV + "PlausibilityTests.test_below_roofline_is_suspicious"),
    Rule("weak-task-strict-check", INFO, "a weak task's outputs are compared strictly",
         _ADV + "RuntimePythonTests.test_constant_output_on_weak_task"),
    Rule("build-cache-entry-discarded", INFO, "a cache entry without the judge's record is built again",
         "adversarial.test_isolation.BuildCacheIntegrityTests.test_a_candidate_cannot_alter_what_another_one_loads"),
    Rule("sandbox-unavailable", INFO, "the candidate ran without a sandbox: bwrap could not start one",
         _ADV + "RuntimePythonTests.test_sandbox_fallback_is_recorded"),
    Rule("sandbox-disabled", INFO, "the request turned the sandbox off",
         _ADV + "RuntimePythonTests.test_seed_probe_without_sandbox"),
)

BY_NAME: Dict[str, Rule] = {r.name: r for r in RULES}


def severity(name: str, lesser: bool = False) -> str:
    """The severity rule ``name`` reports (its lesser one where ``lesser`` and it has one)."""
    rule = BY_NAME[name]
    return rule.lesser if lesser and rule.lesser else rule.severity
