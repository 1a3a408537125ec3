#pragma once
// Every anti-cheat finding of one attempt, with why the rule exists.

#include "data/attemptdetailloader.h"

#include <QAbstractTableModel>

namespace kb::gui {

class FindingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SeverityColumn,
        RuleColumn,
        LocationColumn,
        MessageColumn,
        ExplanationColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, SeverityRole };

    explicit FindingsModel(QObject* parent = nullptr);
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
