#pragma once
// The shared tasks of a paired comparison, one row each: both speedups, their ratio and who
// is better. Sorting by the ratio column orders by how much the two differ (|log ratio|).

#include "data/comparison.h"

#include <QAbstractTableModel>

namespace kb::gui {

class PairedTasksModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        LevelColumn,
        TaskColumn,
        SpeedupAColumn,
        SpeedupBColumn,
        RatioColumn,
        BetterColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, ValueRole };

    explicit PairedTasksModel(QObject* parent = nullptr);

    void setComparison(ComparisonPtr comparison);
    ComparisonPtr comparison() const { return m_comparison; }
    QString taskAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    ComparisonPtr m_comparison;
};

} // namespace kb::gui
