#pragma once
// What the result pages show: every run together, or one run. Row 0 is "All runs", then the
// runs newest first.

#include "data/snapshot.h"

#include <QAbstractListModel>

namespace kb::gui {

class RunScopeModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { SortRole = Qt::UserRole, RunIdRole };

    explicit RunScopeModel(QObject* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    int rowOfRun(db::Id runId) const; // 0 ("All runs") for 0; -1 when unknown
    db::Id runIdAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    SnapshotPtr m_snapshot;
};

} // namespace kb::gui
