#pragma once
// The runs of a snapshot, one row each.

#include "data/snapshot.h"

#include <QAbstractTableModel>

namespace kb::gui {

class RunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        NameColumn,
        SuiteColumn,
        ModeColumn,
        StatusColumn,
        ProgressColumn,
        CorrectColumn,
        SuspiciousColumn,
        RejectedColumn,
        StartedColumn,
        FinishedColumn,
        SettingsColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, RunIdRole };

    explicit RunsModel(QObject* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    // The row of a run; -1 when the run is not in the snapshot.
    int rowOfRun(db::Id runId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    SnapshotPtr m_snapshot;
};

} // namespace kb::gui
