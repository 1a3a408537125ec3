#pragma once
// The tasks x models grid of a run (or of all runs): one row per task, one column per model
// after the fixed columns. A cell holds every sample of that model on that task and shows the
// best one ("best of k"): its verdict, or its speedup vs eager when correct.

#include "data/cellstyle.h"
#include "data/resultsgrid.h"
#include "data/snapshot.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <memory>
#include <vector>

namespace kb::gui {

class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Fixed columns; model i is column ColumnCount + i.
    enum Column { LevelColumn, TaskColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole,
        AttemptIdRole,   // qint64 id of the cell's best sample; 0 for an empty cell
        CellKindRole,    // int(CellKind)
        SpeedupRole,     // double speedup vs eager of the best sample; invalid when none
        VerdictRole,     // stored verdict of the best sample
        LevelRole,       // task level (any column)
        ModelNameRole,   // model of a cell or of a column header
        SearchTextRole,  // task key and name (any column)
        SampleCountRole, // samples in the cell
        FlaggedRole      // bool: the task's reference failed a validation check (any column)
    };

    explicit ResultsModel(QObject* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    db::Id runId() const { return m_runId; }
    const QStringList& models() const { return m_models; }
    QList<int> levels() const;
    int columnOfModel(const QString& model) const; // -1 when absent
    int rowOfTask(const QString& taskKey) const;   // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    using Row = ResultsGridRow;
    using Cell = ResultsGridCell;
    QVariant cellData(const Row& row, const Cell& cell, int modelIndex, int role) const;
    QString cellText(const Cell& cell) const;
    QString cellToolTip(const Row& row, const Cell& cell, int modelIndex) const;
    const std::vector<Row>& rows() const;

    SnapshotPtr m_snapshot;
    db::Id m_runId = 0;
    // The scope's own grid when it came with one (built off the GUI thread), else one built here.
    std::shared_ptr<const ResultsGrid> m_grid;
    QStringList m_models;
    std::vector<QStringList> m_flags; // validation flags per row
};

} // namespace kb::gui
