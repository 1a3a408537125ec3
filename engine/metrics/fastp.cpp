#include "fastp.h"

#include <algorithm>

namespace kb::metrics {

namespace {

// Best clearing speedups (interval lower bound, else the speedup) of the correct, timed tasks:
// the only ones that can ever beat a threshold.
std::vector<double> scoringSpeedups(const std::vector<TaskResult>& tasks, Baseline baseline) {
    std::vector<double> speedups;
    for (const TaskResult& task : tasks) {
        if (task.correct) {
            if (const auto s = task.clearing(baseline)) {
                speedups.push_back(*s);
            }
        }
    }
    return speedups;
}

double fractionAbove(const std::vector<double>& speedups, double p, int denominator) {
    if (denominator <= 0) {
        return 0.0;
    }
    const auto above =
        std::count_if(speedups.begin(), speedups.end(), [p](double s) { return s > p; });
    return static_cast<double>(above) / static_cast<double>(denominator);
}

int denominatorFor(const std::vector<TaskResult>& tasks, std::optional<int> totalTasks) {
    const int seen = static_cast<int>(tasks.size());
    return totalTasks ? std::max(*totalTasks, seen) : seen;
}

} // namespace

double fastP(const std::vector<TaskResult>& tasks, Baseline baseline, double p, int totalTasks) {
    return fractionAbove(scoringSpeedups(tasks, baseline), p, denominatorFor(tasks, totalTasks));
}

double fastP(const std::vector<AttemptOutcome>& outcomesOfOneModel, Baseline baseline, double p,
             std::optional<int> totalTasks) {
    const auto tasks = resolveTasks(outcomesOfOneModel);
    return fractionAbove(scoringSpeedups(tasks, baseline), p, denominatorFor(tasks, totalTasks));
}

std::vector<std::pair<double, double>>
fastPCurve(const std::vector<AttemptOutcome>& outcomesOfOneModel, Baseline baseline, double pFrom,
           double pTo, int steps, std::optional<int> totalTasks) {
    std::vector<std::pair<double, double>> curve;
    if (steps < 1) {
        return curve;
    }
    const auto tasks = resolveTasks(outcomesOfOneModel);
    const auto speedups = scoringSpeedups(tasks, baseline);
    const int denominator = denominatorFor(tasks, totalTasks);
    curve.reserve(static_cast<std::size_t>(steps));
    for (int i = 0; i < steps; ++i) {
        const double p = steps == 1 ? pFrom
                                    : pFrom + static_cast<double>(i) * (pTo - pFrom) /
                                                  static_cast<double>(steps - 1);
        curve.emplace_back(p, fractionAbove(speedups, p, denominator));
    }
    return curve;
}

} // namespace kb::metrics
