#pragma once
// What the plots draw, computed from a snapshot without any drawing, so it can be tested.

#include "snapshot.h"

#include "metrics/outcome.h"

#include <QString>

#include <utility>
#include <vector>

namespace kb::gui {

// The best-of-k speedups of one model's correct, timed tasks at one level.
struct SpeedupGroup {
    QString model;
    int level = 1;
    std::vector<double> speedups; // ascending
};

struct FastPCurve {
    QString model;
    std::vector<std::pair<double, double>> points; // (p, fast_p)
};

// Every (model, level) with at least one attempt, ordered by level then model.
std::vector<SpeedupGroup> speedupGroups(const Snapshot& snapshot, db::Id runId,
                                        metrics::Baseline baseline);
// fast_p for p in [0, 3] per model; level 0 = every level (denominator: all tasks of the run).
std::vector<FastPCurve> fastPCurves(const Snapshot& snapshot, db::Id runId,
                                    metrics::Baseline baseline, int level = 0, int steps = 61);

} // namespace kb::gui
