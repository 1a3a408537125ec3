#pragma once
// Plots of the run in scope: per-level speedup distributions per model and fast_p curves,
// each exportable to PNG, SVG or PDF.

#include "data/snapshot.h"

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QSettings;
class QSplitter;

namespace kb::gui {

class FastPCurvePlot;
class SpeedupDistributionPlot;

class PlotsPage : public QWidget {
    Q_OBJECT
public:
    explicit PlotsPage(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    SpeedupDistributionPlot* distributionPlot() const { return m_distribution; }
    FastPCurvePlot* fastPPlot() const { return m_fastP; }

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

private:
    void exportWithDialog(QCustomPlot* plot, const QString& baseName);

    SpeedupDistributionPlot* m_distribution;
    FastPCurvePlot* m_fastP;
    QComboBox* m_baseline;
    QComboBox* m_level;
    QSplitter* m_splitter;
};

} // namespace kb::gui
