#pragma once
// The correctness trials of one attempt's evaluation.

#include "data/attemptdetailloader.h"

#include <QAbstractTableModel>

namespace kb::gui {

class TrialsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        TrialColumn,
        ResultColumn,
        MaxAbsErrorColumn,
        MaxRelErrorColumn,
        MismatchColumn,
        MessageColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, PassedRole };

    explicit TrialsModel(QObject* parent = nullptr);
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
