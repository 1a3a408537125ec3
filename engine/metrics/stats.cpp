#include "stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace kb::metrics {

std::optional<double> geometricMean(const std::vector<double>& values) {
    if (values.empty()) {
        return std::nullopt;
    }
    double logSum = 0;
    for (double v : values) {
        if (!std::isfinite(v) || v <= 0.0) {
            return std::nullopt;
        }
        logSum += std::log(v);
    }
    return std::exp(logSum / static_cast<double>(values.size()));
}

std::optional<double> median(std::vector<double> values) {
    return quantile(std::move(values), 0.5);
}

std::optional<double> quantile(std::vector<double> values, double q) {
    if (values.empty()) {
        return std::nullopt;
    }
    std::sort(values.begin(), values.end());
    const double clamped = std::clamp(q, 0.0, 1.0);
    const double h = static_cast<double>(values.size() - 1) * clamped;
    const double lowerPos = std::floor(h);
    const auto lower = static_cast<std::size_t>(lowerPos);
    if (lower + 1 >= values.size()) {
        return values.back();
    }
    const double fraction = h - lowerPos;
    return values[lower] + fraction * (values[lower + 1] - values[lower]);
}

double normalQuantile(double p) {
    if (!(p > 0.0 && p < 1.0)) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    // Coefficients of Peter J. Acklam's approximation.
    static constexpr std::array<double, 6> a{-3.969683028665376e+01, 2.209460984245205e+02,
                                             -2.759285104469687e+02, 1.383577518672690e+02,
                                             -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr std::array<double, 5> b{-5.447609879822406e+01, 1.615858368580409e+02,
                                             -1.556989798598866e+02, 6.680131188771972e+01,
                                             -1.328068155288572e+01};
    static constexpr std::array<double, 6> c{-7.784894002430293e-03, -3.223964580411365e-01,
                                             -2.400758277161838e+00, -2.549732539343734e+00,
                                             4.374664141464968e+00,  2.938163982698783e+00};
    static constexpr std::array<double, 4> d{7.784695709041462e-03, 3.224671290700398e-01,
                                             2.445134137142996e+00, 3.754408661907416e+00};
    constexpr double pLow = 0.02425;
    double x = 0;
    if (p < pLow) {
        const double q = std::sqrt(-2.0 * std::log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    } else if (p <= 1.0 - pLow) {
        const double q = p - 0.5;
        const double r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    } else {
        const double q = std::sqrt(-2.0 * std::log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    // One Halley step against the exact CDF brings the error to machine precision.
    const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
    const double u = e * std::sqrt(2.0 * std::numbers::pi) * std::exp(x * x / 2.0);
    return x - u / (1.0 + x * u / 2.0);
}

std::optional<Interval> wilsonInterval(double successes, double n, double confidence) {
    if (!(n > 0.0) || !(confidence > 0.0 && confidence < 1.0)) {
        return std::nullopt;
    }
    const double z = normalQuantile(0.5 + confidence / 2.0);
    const double pHat = std::clamp(successes / n, 0.0, 1.0);
    const double z2 = z * z;
    const double denominator = 1.0 + z2 / n;
    const double centre = (pHat + z2 / (2.0 * n)) / denominator;
    const double half = z / denominator * std::sqrt(pHat * (1.0 - pHat) / n + z2 / (4.0 * n * n));
    return Interval{std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

double signTestPValue(int wins, int losses) {
    const int n = wins + losses;
    if (n <= 0 || wins < 0 || losses < 0) {
        return 1.0;
    }
    const int tail = std::min(wins, losses);
    // Binomial(n, 1/2) probabilities in log space so that large n neither overflows nor
    // underflows: log P(0) = -n log 2, P(i + 1) = P(i) * (n - i) / (i + 1).
    double logP = -static_cast<double>(n) * std::log(2.0);
    double sum = 0;
    for (int i = 0; i <= tail; ++i) {
        sum += std::exp(logP);
        logP += std::log(static_cast<double>(n - i) / static_cast<double>(i + 1));
    }
    return std::min(1.0, 2.0 * sum);
}

std::uint64_t uniformIndex(std::mt19937_64& rng, std::uint64_t n) {
    if (n <= 1) {
        return 0;
    }
    constexpr std::uint64_t maxValue = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t limit = maxValue - (maxValue % n); // a multiple of n
    std::uint64_t draw = rng();
    while (draw >= limit) {
        draw = rng();
    }
    return draw % n;
}

std::optional<Interval> bootstrapGeomeanInterval(const std::vector<double>& values, int resamples,
                                                 double confidence, std::uint64_t seed) {
    if (values.empty() || resamples < 1 || !(confidence > 0.0 && confidence < 1.0)) {
        return std::nullopt;
    }
    std::vector<double> logs;
    logs.reserve(values.size());
    for (double v : values) {
        if (!std::isfinite(v) || v <= 0.0) {
            return std::nullopt;
        }
        logs.push_back(std::log(v));
    }
    std::mt19937_64 rng(seed);
    const auto n = static_cast<std::uint64_t>(logs.size());
    std::vector<double> means;
    means.reserve(static_cast<std::size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        double sum = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            sum += logs[uniformIndex(rng, n)];
        }
        means.push_back(std::exp(sum / static_cast<double>(n)));
    }
    const double alpha = 1.0 - confidence;
    const auto low = quantile(means, alpha / 2.0);
    const auto high = quantile(std::move(means), 1.0 - alpha / 2.0);
    return Interval{*low, *high};
}

std::optional<Interval> bootstrapWeightedGeomeanInterval(const std::vector<WeightedSample>& strata,
                                                         int resamples, double confidence,
                                                         std::uint64_t seed) {
    if (resamples < 1 || !(confidence > 0.0 && confidence < 1.0)) {
        return std::nullopt;
    }
    std::vector<std::pair<std::vector<double>, double>> logs; // per used stratum: logs, weight
    double weightSum = 0;
    for (const WeightedSample& stratum : strata) {
        if (stratum.values.empty() || !(stratum.weight > 0.0)) {
            continue;
        }
        std::vector<double> l;
        l.reserve(stratum.values.size());
        for (double v : stratum.values) {
            if (!std::isfinite(v) || v <= 0.0) {
                return std::nullopt;
            }
            l.push_back(std::log(v));
        }
        logs.emplace_back(std::move(l), stratum.weight);
        weightSum += stratum.weight;
    }
    if (logs.empty()) {
        return std::nullopt;
    }
    std::mt19937_64 rng(seed);
    std::vector<double> means;
    means.reserve(static_cast<std::size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        double weighted = 0;
        for (const auto& [l, weight] : logs) {
            const auto n = static_cast<std::uint64_t>(l.size());
            double sum = 0;
            for (std::uint64_t i = 0; i < n; ++i) {
                sum += l[uniformIndex(rng, n)];
            }
            weighted += weight * (sum / static_cast<double>(n));
        }
        means.push_back(std::exp(weighted / weightSum));
    }
    const double alpha = 1.0 - confidence;
    const auto low = quantile(means, alpha / 2.0);
    const auto high = quantile(std::move(means), 1.0 - alpha / 2.0);
    return Interval{*low, *high};
}

} // namespace kb::metrics
