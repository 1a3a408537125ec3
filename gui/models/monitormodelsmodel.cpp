#include "monitormodelsmodel.h"

#include <algorithm>

namespace kb::gui {

MonitorModelsModel::MonitorModelsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void MonitorModelsModel::setSnapshot(MonitorSnapshotPtr snapshot) {
    std::vector<std::pair<std::string, StateCounts>> rows;
    if (snapshot)
        rows.assign(snapshot->perModel.begin(), snapshot->perModel.end());
    const bool sameModels =
        rows.size() == m_rows.size() &&
        std::equal(rows.begin(), rows.end(), m_rows.begin(),
                   [](const auto& a, const auto& b) { return a.first == b.first; });
    if (sameModels) {
        m_rows = std::move(rows);
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int MonitorModelsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MonitorModelsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MonitorModelsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& [model, c] = m_rows.at(static_cast<std::size_t>(index.row()));
    if (role == Qt::TextAlignmentRole)
        return index.column() == ModelColumn ? QVariant()
                                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const double progress = c.total() > 0 ? 100.0 * c.finished() / c.total() : 0.0;
    switch (index.column()) {
    case ModelColumn:
        return QString::fromStdString(model);
    case TotalColumn:
        return c.total();
    case QueuedColumn:
        return c.queued;
    case ActiveColumn:
        return c.active();
    case DoneColumn:
        return c.done;
    case FailedColumn:
        return c.failed;
    case CancelledColumn:
        return c.cancelled;
    case CorrectColumn:
        return c.correct;
    case ProgressColumn:
        return role == SortRole ? QVariant(progress)
                                : QVariant(QStringLiteral("%1%").arg(progress, 0, 'f', 0));
    default:
        return {};
    }
}

QVariant MonitorModelsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ModelColumn:
        return tr("Model");
    case TotalColumn:
        return tr("Attempts");
    case QueuedColumn:
        return tr("Queued");
    case ActiveColumn:
        return tr("In flight");
    case DoneColumn:
        return tr("Done");
    case FailedColumn:
        return tr("Failed");
    case CancelledColumn:
        return tr("Cancelled");
    case CorrectColumn:
        return tr("Correct");
    case ProgressColumn:
        return tr("Progress");
    default:
        return {};
    }
}

} // namespace kb::gui
