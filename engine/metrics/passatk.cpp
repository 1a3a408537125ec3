#include "passatk.h"

#include "taskresult.h"

#include <algorithm>
#include <limits>

namespace kb::metrics {

double passAtK(int n, int c, int k) {
    if (n < 1 || k < 1 || k > n || c < 0 || c > n) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (c == 0) {
        return 0.0;
    }
    if (n - c < k) {
        return 1.0;
    }
    double allFail = 1.0;
    for (int i = n - c + 1; i <= n; ++i) {
        allFail *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
    }
    return 1.0 - allFail;
}

std::vector<PassAtKCell> computePassAtK(const std::vector<AttemptOutcome>& outcomes,
                                        const std::vector<int>& ks,
                                        const std::map<int, int>& tasksPerLevel) {
    const std::vector<TaskResult> tasks = resolveTasks(outcomes);
    const std::map<int, int> denominators = levelDenominators(tasks, tasksPerLevel);
    std::vector<int> sortedKs = ks;
    std::sort(sortedKs.begin(), sortedKs.end());
    sortedKs.erase(std::unique(sortedKs.begin(), sortedKs.end()), sortedKs.end());

    std::vector<PassAtKCell> cells;
    for (const std::string& model : modelsOf(tasks)) {
        for (const auto& [level, configured] : denominators) {
            int seen = 0;
            for (const TaskResult& task : tasks) {
                seen += (task.model == model && task.level == level) ? 1 : 0;
            }
            for (int k : sortedKs) {
                PassAtKCell cell;
                cell.model = model;
                cell.level = level;
                cell.k = k;
                cell.tasks = std::max(configured, seen);
                double sum = 0;
                for (const TaskResult& task : tasks) {
                    if (task.model != model || task.level != level || task.samples == 0) {
                        continue;
                    }
                    if (task.samples < k) {
                        ++cell.tasksWithTooFewSamples;
                        continue;
                    }
                    sum += passAtK(task.samples, task.correctSamples, k);
                }
                cell.tasksScored = cell.tasks - cell.tasksWithTooFewSamples;
                if (k >= 1 && cell.tasksScored > 0) {
                    cell.passAtK = sum / static_cast<double>(cell.tasksScored);
                }
                cells.push_back(std::move(cell));
            }
        }
    }
    return cells;
}

} // namespace kb::metrics
