#pragma once
// One row per timing series of an attempt (candidate, eager, compile): sample count and spread.

#include "data/attemptdetailloader.h"

#include <QAbstractTableModel>

namespace kb::gui {

class TimingSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SeriesColumn,
        SamplesColumn,
        MedianColumn,
        MeanColumn,
        StdColumn,
        MinColumn,
        MaxColumn,
        WallColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, KindRole, MillisecondsRole };

    explicit TimingSummaryModel(QObject* parent = nullptr);
    void setSnapshot(AttemptDetailPtr detail);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    AttemptDetailPtr m_detail;
};

} // namespace kb::gui
