#include "runscopemodel.h"

#include "data/format.h"

namespace kb::gui {

RunScopeModel::RunScopeModel(QObject* parent)
    : QAbstractListModel(parent) {}

void RunScopeModel::setSnapshot(SnapshotPtr snapshot) {
    beginResetModel();
    m_snapshot = std::move(snapshot);
    endResetModel();
}

int RunScopeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_snapshot || m_snapshot->runs.empty())
        return 0;
    return static_cast<int>(m_snapshot->runs.size()) + 1;
}

db::Id RunScopeModel::runIdAt(int row) const {
    if (row <= 0 || row >= rowCount())
        return 0;
    // newest first
    return m_snapshot->runs[m_snapshot->runs.size() - static_cast<std::size_t>(row)].run.id;
}

int RunScopeModel::rowOfRun(db::Id runId) const {
    if (runId == 0)
        return rowCount() > 0 ? 0 : -1;
    for (int row = 1; row < rowCount(); ++row) {
        if (runIdAt(row) == runId)
            return row;
    }
    return -1;
}

QVariant RunScopeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const db::Id runId = runIdAt(index.row());
    switch (role) {
    case RunIdRole:
        return QVariant::fromValue<qint64>(runId);
    case SortRole:
        return index.row();
    case Qt::DisplayRole:
    case Qt::ToolTipRole: {
        if (runId == 0)
            return tr("All runs");
        const RunSummary* s = m_snapshot->findRun(runId);
        return tr("Run %1 · %2 · %3").arg(runId).arg(qs(s->run.name), qs(s->run.suiteName));
    }
    default:
        break;
    }
    return {};
}

} // namespace kb::gui
