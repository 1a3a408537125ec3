#pragma once
// Paired comparison of two "sides" of a snapshot: a model in a run (or in every run). Two models
// of one run, or one model in two runs, are both just two sides.

#include "metrics/paired.h"
#include "snapshot.h"

#include <QString>
#include <QStringList>
#include <memory>

namespace kb::gui {

struct CompareSide {
    db::Id runId = 0; // 0 = every run
    QString model;
    bool operator==(const CompareSide&) const = default;
};

// "demo-a" for every run, "demo-a (run 3)" for one run.
QString sideLabel(const CompareSide& side);

// The models that have attempts in a run (every run when 0), sorted; from the run summaries.
QStringList modelsOf(const Snapshot& snapshot, db::Id runId);

// The comparison of A against B on the tasks both attempted (engine/metrics/paired).
using ComparisonPtr = std::shared_ptr<const metrics::PairedComparison>;
ComparisonPtr compareSides(const Snapshot& snapshot, const CompareSide& a, const CompareSide& b,
                           metrics::Baseline baseline = metrics::Baseline::Eager);
// The same with each side's attempts taken from its own snapshot (scope).
ComparisonPtr compareSides(const Snapshot& snapshotA, const CompareSide& a,
                           const Snapshot& snapshotB, const CompareSide& b,
                           metrics::Baseline baseline = metrics::Baseline::Eager);

} // namespace kb::gui
