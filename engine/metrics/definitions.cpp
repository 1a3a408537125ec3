#include "definitions.h"

namespace kb::metrics {

namespace {

// Keep identical to docs/metrics.md (checked by the metrics.definitions test).
constexpr std::string_view kDefinitions = R"md(# Metric definitions

Every number in a KernelBench Studio leaderboard, comparison or report is computed from per-attempt
outcomes as defined below. These definitions are printed in every report footer.

## Attempts, tasks and samples

- An *attempt* is one sample of one model on one task. Its verdict is one of: not attempted, build
  error, incorrect, runtime error, timeout, rejected, correct.
- A *scoring* attempt is a correct attempt that is not suspicious-unaccepted. An attempt is
  *suspicious-unaccepted* when plausibility or static checks flagged it as suspicious and no person
  has accepted it. Suspicious attempts that a person accepted score normally.
- Rejected attempts and suspicious-unaccepted attempts never score; they are counted separately
  (columns *rejected* and *suspicious*, counted per attempt).
- A speedup is eager_median / candidate_median (vs eager) or compile_median / candidate_median
  (vs compile). When the harness measured the attempt with interleaved eager/candidate blocks
  (`timing.comparison` in its result), the speedup is the harness's ratio of medians from those
  blocks and comes with its 95 % interval [low, high]; older attempts have the plain median ratio
  and no interval. Only finite, positive speedups are used.
- A measurement is **noisy** when the harness could not bring the interval's relative half-width
  under its target (±3 % by default) within its time cap. A noisy attempt keeps its speedup and
  interval, is flagged (finding `noisy-timing`, severity info) and counted in the column *noisy*
  (scoring attempts); its wide interval is what keeps it out of fast_p.
- A speedup **clears** a threshold p when the lower bound of its interval is strictly greater
  than p, or, for a speedup measured without an interval, when the speedup itself is. An interval
  that contains 1.0 therefore never counts as faster than the baseline, and two speedups whose
  intervals overlap are never called different (see the paired comparison).
- With several samples per task, a task is scored *best of k*: the task is **correct** when at
  least one of its samples scores, and its speedup against each baseline is the largest speedup
  among its scoring samples (shown with that sample's interval). It clears p when any of its
  scoring samples does. A correct task without a measured speedup counts as correct but never
  as faster, and is left out of the geomeans over correct tasks.

## Tasks of a level (the denominator)

- *tasks* of a level is the number of tasks of that level in the suite when it is known; otherwise
  the number of distinct task ids seen at that level across all models. It is never below the
  number of tasks the model itself has outcomes for.
- A task of the level without any attempt of the model is **missing** and counts as failed.
- *attempted*: tasks with at least one sample that was attempted. *built*: tasks with at least one
  sample whose verdict is not build error, rejected or not attempted.

## Per-level metrics

- **Pass rate** = correct / tasks.
- **Pass rate interval**: Wilson score interval at 95 % (z = 1.959963984540054) of correct out of
  tasks.
- **fast_p** (KernelBench `fastp`) = the number of tasks that are correct AND whose speedup
  clears p, divided by all tasks (failed and missing included): the lower bound of the 95 %
  interval must be strictly greater than p (for data measured without an interval, the speedup
  itself). A value exactly equal to p does not count. Reported for p = 1.0 and p = 1.05, against
  eager and against compile. With intervals this is stricter than KernelBench's point-estimate
  fastp: a 1.02x whose interval is [0.99, 1.05] is not counted as faster.
- **Geomean vs eager / vs compile** = exp(mean(log s)) over the correct tasks that have a speedup
  against that baseline; n/a when there is none.
- **Geomean with fallback** = exp(sum(log s) / tasks) over all tasks of the level, where every
  failed, missing or untimed task contributes 1.0 (log 1 = 0).
- **Geomean interval**: the percentile bootstrap described under the paired comparison (2000
  resamples, fixed seed), applied to the speedups of the level's correct, timed tasks; shown
  with every geomean vs eager and vs compile in the CLI report, Markdown, HTML, PDF, the
  leaderboard CSV, the JSON export and the Leaderboard page.
- **Median speedup** = the median over the correct tasks that have a speedup (mean of the two
  middle values for an even count).
- **Compile metrics are n/a** for a level when no attempt of that level, by any model, carries a
  compile speedup (for example CPU runs, where torch.compile does not exist). The compile baseline
  is then unavailable, never faked.
- Tokens, cost, turns and wall time are sums over all attempts of the cell.

## Overall (weighted across levels)

- Each level l has a weight w_l: by default L1 100, L2 100, L3 50, L4 0 (the KernelBench level
  sizes, as in CUDA-Agent Table 1). A level without a configured weight weighs its task count. A
  level with weight 0 appears in its own rows but not in the overall.
- Overall of a rate r (pass rate, fast_p) = sum_l w_l * r_l / sum_l w_l over the levels with
  w_l > 0. For compile rates the sums run over the levels that have a compile baseline.
- Overall of a geomean g (vs eager, vs compile, with fallback) = exp(sum_l w_l * log g_l /
  sum_l w_l) over the levels with w_l > 0 where g_l exists: the weighted geometric mean of the
  per-level geomeans.
- Overall pass rate interval: Wilson interval of the weighted pass rate with the effective sample
  size n_eff = 1 / sum_l (a_l^2 / n_l), a_l = w_l / sum_k w_k, n_l = tasks of level l. When the
  weights equal the task counts this is the pooled interval.
- Overall geomean interval: a stratified percentile bootstrap. Each resample redraws every
  weighted level's correct, timed tasks with replacement within the level, forms the weighted
  geomean above from the resampled level geomeans, and the interval is the 2.5 % and 97.5 %
  quantiles (type 7) over 2000 resamples (one std::mt19937_64 seeded with 20260101, levels in
  ascending order). With one level it equals that level's interval.
- Overall pass@k: the weighted mean of the levels' pass@k (levels where it exists).
- Overall median: the median of the pooled speedups of the correct tasks of the weighted levels.
- Overall counts (tasks, correct, suspicious, rejected, tokens, cost, ...) are plain sums over the
  levels with w_l > 0.
- When no level has w_l > 0 the overall rates and geomeans are n/a.

## pass@k

- With n attempted samples of a task of which c score, the unbiased estimator is
  pass@k = 1 - C(n - c, k) / C(n, k), computed as 1 - prod_{i = n - c + 1}^{n} (1 - k / i);
  it is 1 when n - c < k and 0 when c = 0.
- pass@k of a model on a level is the mean over the level's tasks; missing tasks score 0; tasks
  with fewer than k (but more than 0) samples cannot be estimated and are left out (and counted).
- Every output (CLI report, Markdown, HTML, PDF, leaderboard CSV, JSON export, the Leaderboard
  page) shows pass@1 and pass@k for k = the largest number of samples any task has (when above
  1), next to the run's settings (precision, TF32, compile mode, prompt template). pass@k of a model with fewer than k samples on every task it attempted is n/a. *Pass rate* (best of k) is the share of tasks with at least one scoring sample; pass@1 is
  the expected share when one sample per task is drawn.

## Paired comparison of two models

- *Shared tasks* are the tasks both models attempted. Per shared task each model's speedup is its
  best-of-k speedup when correct and timed, else 1.0 (fallback).
- Ratio r = s_A / s_B per task. A **win** for A when r > 1.02, a **loss** when r < 1 / 1.02, a
  **tie** otherwise (tie band 2 %, configurable). Noise-aware: a task is also a **tie** when the
  two speedups' 95 % intervals overlap (a failed task's 1.0 is exact; a speedup without an
  interval is a single point), however large r is: identical kernels measured twice are a tie.
- **Geomean ratio** = exp(mean(log r)) over the shared tasks.
- **95 % CI** of the geomean ratio: percentile bootstrap; 2000 resamples (configurable) of the
  shared tasks with replacement; indices drawn from std::mt19937_64 seeded with 20260101 by
  rejection sampling (raw draws at or above the largest multiple of the task count are redrawn,
  then modulo); interval = the 2.5 % and 97.5 % quantiles of the resampled geomeans, with linear
  interpolation between order statistics (type 7).
- **Sign test**: exact two-sided binomial test of wins against losses with ties dropped,
  p = min(1, 2 * sum_{i <= min(W, L)} C(W + L, i) / 2^(W + L)).
- **Minimum evidence**: at least 6 shared tasks. With n tasks and no ties, the smallest p-value
  a two-sided exact sign test can give is 2 / 2^n: 0.125 for n = 4, 0.0625 for n = 5, 0.03125 for
  n = 6. Below 6 no difference can be significant at 5 %, and a bootstrap over 2 to 5 tasks mostly
  reflects which tasks were drawn, so the verdict is "not enough evidence (fewer than 6 shared
  tasks)", never a winner.
- **Verdict** (with at least 6 shared tasks): "A better" when the whole CI lies above 1, the sign
  test gives p < 0.05 and A has more wins than losses; "B better" symmetrically;
  "tied (CI includes 1)" when the CI includes 1; otherwise "tied (sign test not significant)".
  Two models are never ranked apart when the CI says they are tied or when their per-task
  differences are within the timing noise.

## Cost and usage (per attempt and per model)

- Every provider request of an attempt is one *call* (a conversation turn with a request time or
  tokens). Tokens (input, output, cache read, cache write), cost and latency of an attempt are
  sums over its calls; the cost of a call is the model's token prices applied to its tokens, and
  an attempt none of whose calls was priced has no cost ("not priced").
- **Mean latency** of a model = the sum of its calls' request times / the number of its calls.
- **Time to first token (TTFT)** is recorded for a call answered as a stream: the time from
  sending the request to the first token of the answer. Calls answered in one piece have none.
  An attempt's `ttft_ms` = the mean TTFT over its streamed calls (`ttft_turns` of them), empty
  when none streamed. A model's **Mean TTFT** = the sum of the TTFTs of all streamed calls of
  its attempts / their number (a mean over calls, not a mean of the attempts' means); "—" when
  none of its calls streamed.
- **Model snapshots**: the model name each answer says it came from (the dated version behind
  an alias), as the provider returned it. Per attempt the distinct names in call order, per
  model the distinct names of all its attempts, sorted; "—" when the provider named none.

## Speedup vs the published baseline (a reference only)

- KernelBench publishes the time of each problem's PyTorch reference on a few GPUs
  (`kbstudio-cli baselines import`, docs/exports.md). Where such a time exists for the task,
  **speedup vs published** = published eager time / the candidate's median measured here. The
  published time is the file's median when it has one, else its mean (the published files carry
  the mean only).
- It is computed only when the attempt's GPU is the same GPU model as the published one:
  both names are normalised to a *GPU model key* (upper case; split at every character that is
  not a letter or digit; the vendor words NVIDIA, GEFORCE, TESLA and QUADRO dropped; the first
  token holding a digit, joined to the word before it when it is digits only). "NVIDIA H100 80GB
  HBM3" (the device name our environment records) and "H100_Modal" (the published folder) are
  both `H100`; "NVIDIA GeForce RTX 4090" is `RTX4090`; "cuda" or "cpu" give no key and never
  match. When several published GPUs have the attempt's key, the one whose name shares the most
  tokens with the attempt's device name is used (e.g. `PCIE`), then the first by name. Without a
  matching published time, or without a measured candidate median, the value is empty.
- Per attempt (CSV and JSON: `published_device`, `published_eager_ms`,
  `speedup_published_eager`) it is shown for every timed attempt; per task (the HTML/PDF
  per-task table, column *vs published*) it is the largest over the task's scoring samples.
- **This crosses machines and sessions**: the published time was measured on another machine
  of that GPU model, with another PyTorch version (2.5.0 for the current files), driver, clocks
  and timing method (KernelBench's wall clock over 100 trials) than the candidate. It is a
  reference only, never one of the paired speedups above: it enters no pass rate, fast_p,
  geomean or comparison.
)md";

} // namespace

std::string_view definitionsMarkdown() {
    return kDefinitions;
}

} // namespace kb::metrics
