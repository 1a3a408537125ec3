#include "runsmodel.h"

#include "data/format.h"

namespace kb::gui {

RunsModel::RunsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void RunsModel::setSnapshot(SnapshotPtr snapshot) {
    beginResetModel();
    m_snapshot = std::move(snapshot);
    endResetModel();
}

int RunsModel::rowOfRun(db::Id runId) const {
    if (!m_snapshot)
        return -1;
    for (std::size_t i = 0; i < m_snapshot->runs.size(); ++i) {
        if (m_snapshot->runs[i].run.id == runId)
            return static_cast<int>(i);
    }
    return -1;
}

int RunsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_snapshot ? 0 : static_cast<int>(m_snapshot->runs.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunSummary& s = m_snapshot->runs[static_cast<std::size_t>(index.row())];
    const db::RunRow& run = s.run;
    if (role == RunIdRole)
        return QVariant::fromValue<qint64>(run.id);
    if (role == Qt::DisplayRole || role == SortRole) {
        const bool sort = role == SortRole;
        switch (index.column()) {
        case IdColumn:
            return QVariant::fromValue<qint64>(run.id);
        case NameColumn:
            return qs(run.name);
        case SuiteColumn:
            return qs(run.suiteName);
        case ModeColumn:
            return qs(run.mode);
        case StatusColumn:
            return qs(run.status);
        case ProgressColumn:
            return sort ? QVariant(s.attempts == 0 ? 0.0 : double(s.finished) / s.attempts)
                        : QVariant(tr("%1 / %2").arg(s.finished).arg(s.attempts));
        case CorrectColumn:
            return s.correct;
        case SuspiciousColumn:
            return s.suspicious;
        case RejectedColumn:
            return s.rejected;
        case StartedColumn:
            return sort ? QVariant(qs(run.startedAt.value_or(run.createdAt)))
                        : QVariant(formatTimestamp(run.startedAt));
        case FinishedColumn:
            return sort ? QVariant(qs(run.finishedAt.value_or(std::string())))
                        : QVariant(formatTimestamp(run.finishedAt));
        case SettingsColumn:
            return settingsSummary(run.settingsJson);
        default:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole && index.column() == SettingsColumn)
        return settingsSummary(run.settingsJson);
    if (role == Qt::ToolTipRole) {
        QStringList lines;
        lines << tr("Run %1: %2").arg(run.id).arg(qs(run.name));
        lines << tr("Created %1").arg(formatTimestamp(run.createdAt));
        for (const auto& [status, count] : s.statusCounts)
            lines << tr("%1: %2").arg(qs(status)).arg(count);
        if (!run.message.empty())
            lines << qs(run.message);
        return lines.join(QLatin1Char('\n'));
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case IdColumn:
        case ProgressColumn:
        case CorrectColumn:
        case SuspiciousColumn:
        case RejectedColumn:
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        default:
            break;
        }
    }
    return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case IdColumn:
            return tr("Run");
        case NameColumn:
            return tr("Name");
        case SuiteColumn:
            return tr("Suite");
        case ModeColumn:
            return tr("Mode");
        case StatusColumn:
            return tr("Status");
        case ProgressColumn:
            return tr("Finished");
        case CorrectColumn:
            return tr("Correct");
        case SuspiciousColumn:
            return tr("Suspicious");
        case RejectedColumn:
            return tr("Rejected");
        case StartedColumn:
            return tr("Started");
        case FinishedColumn:
            return tr("Ended");
        case SettingsColumn:
            return tr("Settings");
        default:
            break;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ProgressColumn:
            return tr("Finished attempts / all attempts of the run");
        case CorrectColumn:
            return tr("Attempts whose output matched the reference");
        case SuspiciousColumn:
            return tr("Attempts flagged suspicious that nobody reviewed yet");
        case RejectedColumn:
            return tr("Attempts rejected by a check or by a reviewer");
        default:
            break;
        }
    }
    return {};
}

} // namespace kb::gui
