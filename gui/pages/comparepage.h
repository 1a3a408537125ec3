#pragma once
// Compare: two models (or one model in two runs) on their common tasks: win/tie/loss, the
// paired geomean ratio with its bootstrap interval and sign test, the tasks where they differ
// most, and a head-to-head scatter plot.

#include "data/comparison.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSettings;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace kb::gui {

class HeadToHeadPlot;
class ScopeCache;
class PairedTasksModel;

class ComparePage : public QWidget {
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);

    // Keeps the chosen sides when the new snapshot still has them; otherwise picks the first
    // two models of the run in scope.
    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    void setSides(const CompareSide& a, const CompareSide& b);
    CompareSide sideA() const;
    CompareSide sideB() const;
    void setBaseline(metrics::Baseline baseline);
    // Where the attempts of a side outside the snapshot's scope are read (in the background);
    // without one such a side has no attempts.
    void setScopeCache(ScopeCache* cache);
    bool isWaitingForScope() const { return m_waiting; }

    ComparisonPtr comparison() const { return m_comparison; }
    QString summaryText() const;
    PairedTasksModel* tasksModel() const { return m_model; }
    QTableView* view() const { return m_view; }
    HeadToHeadPlot* plot() const { return m_plot; }

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

private:
    void fillRuns(QComboBox* box);
    void fillModels(QComboBox* runBox, QComboBox* modelBox, const QString& wanted);
    void recompute();
    void exportPlot();
    // The snapshot holding a side's attempts; null while they are being read.
    SnapshotPtr snapshotFor(db::Id runId);

    SnapshotPtr m_snapshot;
    ComparisonPtr m_comparison;
    QComboBox* m_runA;
    QComboBox* m_modelA;
    QComboBox* m_runB;
    QComboBox* m_modelB;
    QComboBox* m_baseline;
    QLabel* m_summary;
    PairedTasksModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    HeadToHeadPlot* m_plot;
    QSplitter* m_splitter;
    ScopeCache* m_scopes = nullptr;
    bool m_waiting = false;
    bool m_updating = false;
    db::Id m_scope = 0; // the run in scope at the last setSnapshot
};

} // namespace kb::gui
