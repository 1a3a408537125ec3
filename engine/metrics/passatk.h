#pragma once

#include "outcome.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::metrics {

// Unbiased pass@k estimator (Chen et al. 2021) for one task with n samples of which c pass:
// 1 - C(n - c, k) / C(n, k), computed as 1 - prod_{i = n - c + 1}^{n} (1 - k / i) so that no
// binomial coefficient is ever formed. 1 when n - c < k; 0 when c == 0.
// NaN for invalid input (n < 1, k < 1, k > n, c < 0 or c > n).
double passAtK(int n, int c, int k);

// pass@k of one model on one level: the mean over the level's tasks of passAtK(n, c, k), where
// n = samples that were attempted (verdict not NotAttempted) and c = samples that may score.
// Tasks of the level the model has no attempted sample for are failures (score 0). Tasks with
// 0 < n < k cannot be estimated: they leave numerator and denominator and are counted in
// tasksWithTooFewSamples.
struct PassAtKCell {
    std::string model;
    int level = 1;
    int k = 1;
    int tasks = 0;       // the level's task count (as in the leaderboard)
    int tasksScored = 0; // tasks - tasksWithTooFewSamples
    int tasksWithTooFewSamples = 0;
    std::optional<double> passAtK; // nullopt when tasksScored == 0
};

// One cell per model x level x k, sorted by model, level, k. tasksPerLevel gives the level task
// counts as in LeaderboardOptions (levelDenominators).
std::vector<PassAtKCell> computePassAtK(const std::vector<AttemptOutcome>& outcomes,
                                        const std::vector<int>& ks,
                                        const std::map<int, int>& tasksPerLevel = {});

} // namespace kb::metrics
