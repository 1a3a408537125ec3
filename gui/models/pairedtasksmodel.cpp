#include "pairedtasksmodel.h"

#include "data/format.h"

#include <QBrush>
#include <QColor>
#include <cmath>

namespace kb::gui {

PairedTasksModel::PairedTasksModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void PairedTasksModel::setComparison(ComparisonPtr comparison) {
    beginResetModel();
    m_comparison = std::move(comparison);
    endResetModel();
}

QString PairedTasksModel::taskAt(int row) const {
    if (!m_comparison || row < 0 || row >= rowCount())
        return {};
    return QString::fromStdString(m_comparison->tasks.at(static_cast<std::size_t>(row)).taskId);
}

int PairedTasksModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_comparison ? 0 : static_cast<int>(m_comparison->tasks.size());
}

int PairedTasksModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PairedTasksModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !m_comparison)
        return {};
    const auto& t = m_comparison->tasks.at(static_cast<std::size_t>(index.row()));
    const auto times = [](double v,
                          const std::optional<metrics::SpeedupBounds>& b = {}) -> QString {
        return b ? formatSpeedupInterval(v, b->low, b->high) : formatSpeedup(v);
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case LevelColumn:
            return t.level;
        case TaskColumn:
            return QString::fromStdString(t.taskId);
        case SpeedupAColumn:
            return t.correctA ? times(t.speedupA, t.boundsA)
                              : tr("failed (%1)").arg(times(t.speedupA));
        case SpeedupBColumn:
            return t.correctB ? times(t.speedupB, t.boundsB)
                              : tr("failed (%1)").arg(times(t.speedupB));
        case RatioColumn:
            return times(t.ratio);
        case BetterColumn:
            return t.comparison == metrics::TaskComparison::Win    ? tr("A")
                   : t.comparison == metrics::TaskComparison::Loss ? tr("B")
                   : t.tiedByNoise                                 ? tr("tie (intervals overlap)")
                                                                   : tr("tie");
        default:
            return {};
        }
    case SortRole:
        switch (index.column()) {
        case LevelColumn:
            return t.level;
        case TaskColumn:
            return QString::fromStdString(t.taskId);
        case SpeedupAColumn:
            return t.speedupA;
        case SpeedupBColumn:
            return t.speedupB;
        case RatioColumn:
            return std::abs(std::log(t.ratio)); // how much they differ, either way
        case BetterColumn:
            return static_cast<int>(t.comparison);
        default:
            return {};
        }
    case ValueRole:
        switch (index.column()) {
        case SpeedupAColumn:
            return t.speedupA;
        case SpeedupBColumn:
            return t.speedupB;
        case RatioColumn:
            return t.ratio;
        default:
            return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == TaskColumn || index.column() == BetterColumn
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == BetterColumn && t.comparison != metrics::TaskComparison::Tie)
            return QBrush(t.comparison == metrics::TaskComparison::Win ? QColor(0x1f, 0x77, 0xb4)
                                                                       : QColor(0xd6, 0x27, 0x28));
        return {};
    case Qt::ToolTipRole:
        return tr("%1: A %2×, B %3×; A/B = %4 (a failed task counts as 1×)")
            .arg(QString::fromStdString(t.taskId))
            .arg(t.speedupA, 0, 'f', 3)
            .arg(t.speedupB, 0, 'f', 3)
            .arg(t.ratio, 0, 'f', 3);
    default:
        return {};
    }
}

QVariant PairedTasksModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case LevelColumn:
        return tr("Level");
    case TaskColumn:
        return tr("Task");
    case SpeedupAColumn:
        return tr("A speedup");
    case SpeedupBColumn:
        return tr("B speedup");
    case RatioColumn:
        return tr("A / B");
    case BetterColumn:
        return tr("Better");
    default:
        return {};
    }
}

} // namespace kb::gui
