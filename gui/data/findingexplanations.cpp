#include "findingexplanations.h"

#include <QCoreApplication>
#include <map>

namespace kb::gui {

QString findingExplanation(const std::string& rule) {
    static const std::map<std::string, const char*> explanations = {
        {"torch-op-in-forward",
         "The forward pass calls a PyTorch compute operation: the speedup would be PyTorch's, "
         "not the candidate's kernel."},
        {"cpp-torch-op",
         "The C++/CUDA source calls a torch:: or at:: compute function instead of its own kernel."},
        {"vendor-library",
         "The source calls a vendor library (cuBLAS, cuDNN, CUTLASS, ...), which the suite's "
         "policy does not allow."},
        {"fallback-try-except",
         "A try/except falls back to PyTorch when the custom kernel fails, so a broken kernel "
         "can still pass."},
        {"reference-model-use",
         "The candidate uses the reference Model, so it can return the reference's own output."},
        {"monkey-patch",
         "The candidate assigns to torch, time or harness attributes: it could patch timers or "
         "comparison functions."},
        {"forbidden-import",
         "The candidate imports a module that can run work outside the timed window, read the "
         "judge's memory or reach the network."},
        {"forbidden-call",
         "The candidate calls an operating-system function (processes, files, environment) that "
         "a kernel never needs."},
        {"dynamic-code",
         "exec/eval/compile hide what the candidate actually runs from the static checks."},
        {"file-write", "The candidate writes files outside its workspace."},
        {"global-state",
         "The candidate keeps module-level state between calls, which can cache outputs."},
        {"state-in-forward",
         "The forward pass stores results on the module, which can replay an earlier output."},
        {"module-in-forward",
         "A PyTorch module is created inside forward: its work is PyTorch's, not the kernel's."},
        {"precision-downgrade",
         "The kernel computes in half precision (fp16/bf16/TF32), which can pass a loose "
         "tolerance while doing less work than the task asks."},
        {"cpp-thread-or-stream",
         "Threads, side streams, CUDA graphs or L2 persistence can move work outside the timed "
         "window or replay a cached result."},
        {"side-stream", "Work ran on a side stream that the timed window did not cover."},
        {"cuda-graph", "CUDA-graph replay can skip the work the timer is meant to measure."},
        {"cpp-system-call",
         "The C++ source calls system, fork, file or socket functions that a kernel never needs."},
        {"excessive-speedup",
         "The speedup is above the run's plausibility limit: real kernels rarely beat the "
         "baseline by that much, so a person should look before it counts."},
        {"timing-exceeds-wall-clock",
         "The timed duration exceeds the wall clock measured by the trusted parent: the timer "
         "may have been tampered with."},
        {"wall-clock-exceeds-timing",
         "The wall clock is much longer than the timed duration: work may have happened outside "
         "the timed window."},
        {"runtime-unmeasured-work",
         "The judge's own clock saw the calls take far longer than the candidate's samples say: "
         "samples forged, or work moved outside the measured window."},
        {"runtime-hidden-parallelism",
         "The candidate's processes (or the whole machine) used more CPU during its timed calls "
         "than its thread budget allows: work ran in parallel where it is not counted."},
        {"runtime-escaped-stop",
         "A process of the candidate was running while the reference was being timed, although "
         "the judge had stopped it: it resumed itself to compete with the reference."},
        {"runtime-precision-downgrade",
         "On a float32 task the output carries the error of rounding its inputs to a short "
         "mantissa (TF32, fp16 or bf16), which a float32 kernel does not make."},
        {"runtime-background-thread",
         "A Python thread the candidate started was still running: work can happen outside the "
         "timed window."},
        {"noisy-timing",
         "The speedup's 95% interval is wider than the noisy limit: the number is uncertain, "
         "not suspicious."},
        {"non-finite-output", "The output contains NaN or infinity."},
        {"near-constant",
         "The task's output is nearly constant, so a constant answer could pass the check."},
        {"input-insensitive",
         "The task's output barely depends on its inputs, so a cached answer could pass."},
        {"below-tolerance",
         "The task's output values are below the tolerance, so a zero output could pass."},
        {"no-custom-kernel", "The candidate defines no custom kernel at all."},
        {"missing-modelnew", "The candidate does not define ModelNew, so it cannot be run."},
        {"missing-forward", "ModelNew has no forward method."},
        {"syntax-error", "The candidate is not valid Python."},
        {"env-change", "The candidate changes environment variables that affect the evaluation."},
    };
    const auto it = explanations.find(rule);
    if (it == explanations.end()) {
        return QCoreApplication::translate("kb::gui::Findings",
                                           "A check of the evaluation flagged this attempt.");
    }
    return QCoreApplication::translate("kb::gui::Findings", it->second);
}

} // namespace kb::gui
