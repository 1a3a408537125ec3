#pragma once
// Plots of the run in scope: per-level speedup distributions per model, fast_p curves, cost vs
// score per model and turns vs speedup of multi-turn and agent attempts, each exportable to PNG,
// SVG or PDF.

#include "data/snapshot.h"

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QSettings;
class QSplitter;

namespace kb::gui {

class CostScorePlot;
class FastPCurvePlot;
class SpeedupDistributionPlot;
class TurnsSpeedupPlot;

class PlotsPage : public QWidget {
    Q_OBJECT
public:
    explicit PlotsPage(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    SpeedupDistributionPlot* distributionPlot() const { return m_distribution; }
    FastPCurvePlot* fastPPlot() const { return m_fastP; }
    CostScorePlot* costScorePlot() const { return m_costScore; }
    TurnsSpeedupPlot* turnsSpeedupPlot() const { return m_turnsSpeedup; }

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

private:
    void exportWithDialog(QCustomPlot* plot, const QString& baseName);

    SpeedupDistributionPlot* m_distribution;
    FastPCurvePlot* m_fastP;
    CostScorePlot* m_costScore;
    TurnsSpeedupPlot* m_turnsSpeedup;
    QComboBox* m_baseline;
    QComboBox* m_level;
    QComboBox* m_score;
    QSplitter* m_columns;      // the speedup plots | the cost and turns plots
    QSplitter* m_splitter;     // distribution over fast_p
    QSplitter* m_sideSplitter; // cost vs score over turns vs speedup
};

} // namespace kb::gui
