#include "comparison.h"

#include "analysis/outcomes.h"

#include <QCoreApplication>

namespace kb::gui {

namespace {

std::vector<metrics::AttemptOutcome> outcomesOf(const Snapshot& snapshot, const CompareSide& side) {
    const std::string model = side.model.toStdString();
    std::vector<metrics::AttemptOutcome> outcomes;
    for (const auto* a : snapshot.attemptsOf(side.runId)) {
        if (a->modelName == model)
            outcomes.push_back(engine::toOutcome(*a));
    }
    return outcomes;
}

} // namespace

QString sideLabel(const CompareSide& side) {
    if (side.runId == 0)
        return side.model;
    return QCoreApplication::translate("kb::gui::Comparison", "%1 (run %2)")
        .arg(side.model)
        .arg(side.runId);
}

QStringList modelsOf(const Snapshot& snapshot, db::Id runId) {
    return snapshot.modelNames(runId);
}

ComparisonPtr compareSides(const Snapshot& snapshot, const CompareSide& a, const CompareSide& b,
                           metrics::Baseline baseline) {
    return compareSides(snapshot, a, snapshot, b, baseline);
}

ComparisonPtr compareSides(const Snapshot& snapshotA, const CompareSide& a,
                           const Snapshot& snapshotB, const CompareSide& b,
                           metrics::Baseline baseline) {
    metrics::PairedOptions options;
    options.baseline = baseline;
    auto result =
        metrics::comparePaired(outcomesOf(snapshotA, a), outcomesOf(snapshotB, b), options);
    result.modelA = sideLabel(a).toStdString();
    result.modelB = sideLabel(b).toStdString();
    return std::make_shared<const metrics::PairedComparison>(std::move(result));
}

} // namespace kb::gui
