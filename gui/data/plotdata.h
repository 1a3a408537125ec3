#pragma once
// What the plots draw, computed from a snapshot without any drawing, so it can be tested.

#include "metrics/outcome.h"
#include "snapshot.h"

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

// What a model spent against how well it scored, over the run in scope.
struct CostScorePoint {
    QString model;
    double spend = 0; // USD, or tokens (input + output) when CostScoreData::inUsd is false
    double score = 0; // 0..1
};

struct CostScoreData {
    // USD only when every model has a stored cost; a model without prices would otherwise sit
    // at $0 as if it were free.
    bool inUsd = false;
    std::vector<CostScorePoint> points; // one per model, in leaderboard order
};

// Which weighted-overall leaderboard number a cost-vs-score point shows.
enum class ScoreMeasure { PassRate, Fast1Eager };

// One correct, timed attempt of a multi-turn or agent run.
struct TurnsSpeedupPoint {
    QString model;
    QString taskKey;
    db::Id attemptId = 0;
    int turns = 0;      // its rows in turns
    double speedup = 0; // vs eager
};

struct TurnsSpeedupData {
    int attempts = 0; // multi-turn or agent attempts in scope, whatever their verdict
    std::vector<TurnsSpeedupPoint> points;
};

// Every (model, level) with at least one attempt, ordered by level then model.
std::vector<SpeedupGroup> speedupGroups(const Snapshot& snapshot, db::Id runId,
                                        metrics::Baseline baseline);
// fast_p for p in [0, 3] per model; level 0 = every level (denominator: all tasks of the run).
std::vector<FastPCurve> fastPCurves(const Snapshot& snapshot, db::Id runId,
                                    metrics::Baseline baseline, int level = 0, int steps = 61);
// One point per model of the run (0 = every run), scores from the run's weighted overall row.
CostScoreData costScorePoints(const Snapshot& snapshot, db::Id runId, ScoreMeasure measure);
// Every scoring-correct attempt with a usable eager speedup whose mode is not one-shot.
TurnsSpeedupData turnsSpeedupPoints(const Snapshot& snapshot, db::Id runId);

} // namespace kb::gui
