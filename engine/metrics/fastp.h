#pragma once

#include "outcome.h"
#include "taskresult.h"

#include <optional>
#include <utility>
#include <vector>

namespace kb::metrics {

// KernelBench fast_p: the number of tasks that are correct AND whose best speedup against the
// baseline clears p, divided by ALL tasks (failed and missing tasks included). A speedup clears p
// when the lower bound of its 95 % interval is strictly greater than p, or, for a speedup measured
// without an interval (older data), when the speedup itself is (clearingSpeedup). A value exactly
// equal to p does not count. Correct tasks without a usable speedup never count.
//
// Denominator: max(totalTasks, tasks.size()); 0.0 when that is 0.
double fastP(const std::vector<TaskResult>& tasks, Baseline baseline, double p, int totalTasks);

// The same from raw outcomes of ONE model (samples are collapsed best-of-k with resolveTasks).
// Without totalTasks the denominator is the number of distinct (level, task) pairs in outcomes.
double fastP(const std::vector<AttemptOutcome>& outcomesOfOneModel, Baseline baseline, double p,
             std::optional<int> totalTasks = std::nullopt);

// fast_p sampled at `steps` evenly spaced thresholds p_i = pFrom + i * (pTo - pFrom) / (steps - 1),
// i = 0 .. steps - 1 (just pFrom when steps == 1, empty when steps < 1). Pairs are (p, fast_p).
std::vector<std::pair<double, double>>
fastPCurve(const std::vector<AttemptOutcome>& outcomesOfOneModel, Baseline baseline,
           double pFrom = 0.0, double pTo = 3.0, int steps = 61,
           std::optional<int> totalTasks = std::nullopt);

} // namespace kb::metrics
