#include "suitetasksmodel.h"

#include <QApplication>
#include <QStyle>

namespace kb::gui {

SuiteTasksModel::SuiteTasksModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void SuiteTasksModel::setCatalog(CatalogPtr catalog, db::Id suiteId) {
    beginResetModel();
    m_catalog = std::move(catalog);
    m_rows = m_catalog ? m_catalog->tasksOf(suiteId) : std::vector<const TaskInfo*>{};
    endResetModel();
}

const TaskInfo* SuiteTasksModel::taskAt(int row) const {
    return row >= 0 && row < rowCount() ? m_rows.at(static_cast<std::size_t>(row)) : nullptr;
}

int SuiteTasksModel::rowOfTask(db::Id taskId) const {
    for (int row = 0; row < rowCount(); ++row) {
        if (m_rows.at(static_cast<std::size_t>(row))->task.id == taskId)
            return row;
    }
    return -1;
}

int SuiteTasksModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SuiteTasksModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SuiteTasksModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TaskInfo& t = *m_rows.at(static_cast<std::size_t>(index.row()));
    const int baselines = static_cast<int>(m_catalog->baselinesOf(t.task).size());
    switch (role) {
    case TaskIdRole:
        return qint64(t.task.id);
    case FlaggedRole:
        return t.flagged();
    case Qt::DisplayRole:
    case SortRole:
        switch (index.column()) {
        case KeyColumn:
            return QString::fromStdString(t.task.key);
        case NameColumn:
            return QString::fromStdString(t.task.name);
        case LevelColumn:
            return t.task.level;
        case OpsColumn:
            return t.ops.join(QStringLiteral(", "));
        case FlagsColumn:
            return role == SortRole ? QVariant(int(t.flagTexts().size()))
                                    : QVariant(t.flagTexts().join(QStringLiteral("; ")));
        case BaselinesColumn:
            return baselines;
        default:
            return {};
        }
    case Qt::DecorationRole:
        if (index.column() == FlagsColumn && t.flagged() &&
            qobject_cast<QApplication*>(QCoreApplication::instance()))
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == FlagsColumn && t.flagged())
            return tr("The reference failed a validation check; results on this task may not mean "
                      "what they seem:\n%1")
                .arg(t.flagTexts().join(QLatin1Char('\n')));
        if (index.column() == OpsColumn)
            return t.ops.join(QStringLiteral(", "));
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == LevelColumn || index.column() == BaselinesColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    default:
        return {};
    }
}

QVariant SuiteTasksModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case KeyColumn:
        return tr("Task");
    case NameColumn:
        return tr("Name");
    case LevelColumn:
        return tr("Level");
    case OpsColumn:
        return tr("Operators");
    case FlagsColumn:
        return tr("Validation");
    case BaselinesColumn:
        return tr("Baselines");
    default:
        return {};
    }
}

BaselinesModel::BaselinesModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void BaselinesModel::setBaselines(std::vector<db::BaselineRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int BaselinesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int BaselinesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BaselinesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& b = m_rows.at(static_cast<std::size_t>(index.row()));
    const auto ms = [](const std::optional<double>& v) -> QString {
        return v ? QStringLiteral("%1 ms").arg(*v, 0, 'g', 4) : QStringLiteral("–");
    };
    if (role == Qt::ToolTipRole && index.column() == CompileColumn && !b.compileNote.empty())
        return QString::fromStdString(b.compileNote);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case DeviceColumn:
        return QString::fromStdString(b.device);
    case TorchColumn:
        return QString::fromStdString(b.torchVersion);
    case SettingsColumn:
        return QString::fromStdString(b.settingsKey);
    case EagerColumn:
        return ms(b.eagerMedianMs);
    case CompileColumn:
        return ms(b.compileMedianMs);
    case MeasuredColumn:
        return QString::fromStdString(b.measuredAt).left(10);
    default:
        return {};
    }
}

QVariant BaselinesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case DeviceColumn:
        return tr("Device");
    case TorchColumn:
        return tr("torch");
    case SettingsColumn:
        return tr("Settings");
    case EagerColumn:
        return tr("Eager median");
    case CompileColumn:
        return tr("Compile median");
    case MeasuredColumn:
        return tr("Measured");
    default:
        return {};
    }
}

} // namespace kb::gui
