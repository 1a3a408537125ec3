#pragma once

#include "../metrics/leaderboard.h"

#include <QString>

namespace kb::report {

// Aligned plain-text leaderboard for the CLI: one block per level, then the weighted overall.
// Columns: model, tasks, correct, pass rate, fast_1 / fast_1.05 vs eager, fast_1 vs compile,
// geomean vs eager, geomean with fallback (eager), geomean vs compile, suspicious, rejected.
// Rates are percentages with one decimal, speedups two decimals and "x", "n/a" where a value
// does not exist (no correct task, no compile baseline, threshold not computed).
QString formatLeaderboardText(const kb::metrics::Leaderboard& board);

// Markdown table in the layout of CUDA-Agent's Table 1: one row per model, and per level and
// for the overall the column group Pass, Faster than eager, Faster than compile, Geomean vs
// eager, Geomean vs compile ("faster" = fast_1.0). A short legend follows the table.
QString formatLeaderboardMarkdown(const kb::metrics::Leaderboard& board);

} // namespace kb::report
