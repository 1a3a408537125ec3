#pragma once
// The run monitor's per-model table: attempts per state and how many are correct.

#include "data/monitorsnapshot.h"

#include <QAbstractTableModel>

namespace kb::gui {

class MonitorModelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ModelColumn,
        TotalColumn,
        QueuedColumn,
        ActiveColumn,
        DoneColumn,
        FailedColumn,
        CancelledColumn,
        CorrectColumn,
        ProgressColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole };

    explicit MonitorModelsModel(QObject* parent = nullptr);
    // Updates counts in place when the models are the same (no reset while watching a run).
    void setSnapshot(MonitorSnapshotPtr snapshot);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<std::pair<std::string, StateCounts>> m_rows;
};

} // namespace kb::gui
