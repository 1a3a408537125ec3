#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

// Small statistics toolbox behind the metrics: summaries, intervals, tests and the bootstrap.
// Everything here is deterministic; the bootstrap uses its own index draw so that a seed gives
// the same interval with every standard library.
namespace kb::metrics {

// Seed of every bootstrap unless the caller gives another one.
inline constexpr std::uint64_t kDefaultBootstrapSeed = 20260101;
inline constexpr int kDefaultBootstrapResamples = 2000;

struct Interval {
    double low = 0;
    double high = 0;
    bool contains(double value) const { return low <= value && value <= high; }
};

// exp(mean(log x)); nullopt when empty or when any value is not finite and positive.
std::optional<double> geometricMean(const std::vector<double>& values);

// Middle value (mean of the two middle values for an even count); nullopt when empty.
std::optional<double> median(std::vector<double> values);

// Quantile with linear interpolation between order statistics (Hyndman & Fan type 7, the
// default of R and NumPy): h = (n - 1) * q, x[floor h] + (h - floor h) * (x[floor h + 1] - x[floor
// h]). q is clamped to [0, 1]; nullopt when empty.
std::optional<double> quantile(std::vector<double> values, double q);

// Inverse of the standard normal CDF, for 0 < p < 1 (Acklam's rational approximation refined
// by one Halley step; relative error below 1e-12). NaN outside (0, 1).
double normalQuantile(double p);

// Two-sided Wilson score interval for a binomial proportion successes / n, at the given
// confidence (0.95 -> z = 1.959963984540054). n may be an effective (non-integer) sample size.
// nullopt when n <= 0.
std::optional<Interval> wilsonInterval(double successes, double n, double confidence = 0.95);

// Two-sided exact sign test of wins against losses (ties already dropped):
// p = min(1, 2 * sum_{i=0}^{min(w,l)} C(w+l, i) / 2^(w+l)); 1 when w + l == 0.
double signTestPValue(int wins, int losses);

// Unbiased uniform index in [0, n) from a 64-bit Mersenne Twister by rejection sampling of
// the raw output (values at or above the largest multiple of n are redrawn), then modulo n.
std::uint64_t uniformIndex(std::mt19937_64& rng, std::uint64_t n);

// Percentile-bootstrap interval of the geometric mean of values: `resamples` resamples of
// values.size() indices drawn with uniformIndex from std::mt19937_64(seed); the geometric
// mean of each; the interval is the type-7 quantiles at (1 - confidence) / 2 and
// (1 + confidence) / 2 of those means. nullopt when values is empty, any value is not
// positive, or resamples < 1.
std::optional<Interval> bootstrapGeomeanInterval(const std::vector<double>& values,
                                                 int resamples = kDefaultBootstrapResamples,
                                                 double confidence = 0.95,
                                                 std::uint64_t seed = kDefaultBootstrapSeed);

// One stratum of a weighted bootstrap: its values and its weight (> 0).
struct WeightedSample {
    std::vector<double> values;
    double weight = 1.0;
};

// Stratified percentile bootstrap of a weighted geometric mean of per-stratum geometric means,
// exp(sum_s w_s * mean(log x_s) / sum_s w_s): each resample redraws every stratum's values with
// replacement within the stratum (strata in the given order, draws as in
// bootstrapGeomeanInterval from one generator). Strata with no values or weight <= 0 are left
// out. With one stratum this is bootstrapGeomeanInterval of its values. nullopt when no stratum
// is left, a value is not finite and positive, or resamples < 1.
std::optional<Interval> bootstrapWeightedGeomeanInterval(
    const std::vector<WeightedSample>& strata, int resamples = kDefaultBootstrapResamples,
    double confidence = 0.95, std::uint64_t seed = kDefaultBootstrapSeed);

} // namespace kb::metrics
