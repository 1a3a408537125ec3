#include "resultsmodel.h"

#include "data/format.h"

#include <QApplication>
#include <QGuiApplication>
#include <QStyle>
#include <algorithm>

namespace kb::gui {

ResultsModel::ResultsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void ResultsModel::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_runId = runId;
    m_grid.reset();
    m_models.clear();
    m_flags.clear();
    if (m_snapshot) {
        const ScopeData* scope = m_snapshot->scope.get();
        if (scope && scope->grid && !scope->everyRun && scope->runId == runId)
            m_grid = scope->grid;
        else
            m_grid = std::make_shared<const ResultsGrid>(
                buildResultsGrid(m_snapshot->attemptsOf(runId)));
        m_models = m_grid->models;
        for (const auto& row : m_grid->rows) {
            const auto flags = m_snapshot->taskFlags.find(row.key.toStdString());
            m_flags.push_back(flags == m_snapshot->taskFlags.end() ? QStringList() : flags->second);
        }
    }
    endResetModel();
}

const std::vector<ResultsModel::Row>& ResultsModel::rows() const {
    static const std::vector<Row> none;
    return m_grid ? m_grid->rows : none;
}

QList<int> ResultsModel::levels() const {
    QList<int> out;
    for (const auto& row : rows()) {
        if (!out.contains(row.level))
            out << row.level;
    }
    return out;
}

int ResultsModel::columnOfModel(const QString& model) const {
    const auto i = m_models.indexOf(model);
    return i < 0 ? -1 : ColumnCount + static_cast<int>(i);
}

int ResultsModel::rowOfTask(const QString& taskKey) const {
    for (std::size_t i = 0; i < rows().size(); ++i) {
        if (rows()[i].key == taskKey)
            return static_cast<int>(i);
    }
    return -1;
}

int ResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows().size());
}

int ResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount + static_cast<int>(m_models.size());
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows()[static_cast<std::size_t>(index.row())];
    const QStringList& flags = m_flags[static_cast<std::size_t>(index.row())];
    if (role == LevelRole)
        return row.level;
    if (role == SearchTextRole)
        return QString(row.key + QLatin1Char(' ') + row.name);
    if (role == FlaggedRole)
        return !flags.isEmpty();
    if (index.column() >= ColumnCount) {
        const int modelIndex = index.column() - ColumnCount;
        return cellData(row, row.cells[static_cast<std::size_t>(modelIndex)], modelIndex, role);
    }
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == LevelColumn ? QVariant(tr("L%1").arg(row.level))
                                             : QVariant(row.key);
    case Qt::DecorationRole:
        if (index.column() == TaskColumn && !flags.isEmpty() &&
            qobject_cast<QApplication*>(QCoreApplication::instance()))
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case SortRole:
        return index.column() == LevelColumn ? QVariant(row.level) : QVariant(row.key);
    case Qt::ToolTipRole: {
        QString tip =
            row.name.isEmpty() ? row.key : QString(row.key + QStringLiteral(": ") + row.name);
        if (!flags.isEmpty())
            tip += QLatin1Char('\n') +
                   tr("Flagged reference: %1").arg(flags.join(QStringLiteral("; ")));
        return tip;
    }
    case CellKindRole:
        return int(CellKind::Empty);
    default:
        break;
    }
    return {};
}

QString ResultsModel::cellText(const Cell& cell) const {
    if (!cell.best)
        return QStringLiteral("–");
    const db::AttemptRow& a = *cell.best;
    QString text;
    switch (cellKindOf(a)) {
    case CellKind::Faster:
    case CellKind::Slower:
        text =
            formatSpeedupInterval(a.speedupEager, a.uncertainty.eagerLow, a.uncertainty.eagerHigh);
        break;
    case CellKind::Suspicious:
        text = QStringLiteral("⚠ ") +
               (a.speedupEager ? formatSpeedupInterval(a.speedupEager, a.uncertainty.eagerLow,
                                                       a.uncertainty.eagerHigh)
                               : tr("correct"));
        break;
    case CellKind::CorrectUntimed:
        text = tr("correct");
        break;
    case CellKind::Rejected:
        text = tr("rejected");
        break;
    case CellKind::Pending:
        text = tr("pending");
        break;
    default:
        text = verdictLabel(a.verdict);
        break;
    }
    if (a.uncertainty.noisy() && a.speedupEager)
        text += tr(" noisy");
    if (cell.samples.size() > 1)
        text += tr("  (%1/%2)").arg(cell.scoring).arg(cell.samples.size());
    return text;
}

QString ResultsModel::cellToolTip(const Row& row, const Cell& cell, int modelIndex) const {
    QStringList lines;
    lines << tr("%1 on %2 (level %3)").arg(m_models.at(modelIndex), row.key).arg(row.level);
    if (!cell.best) {
        lines << tr("not attempted");
        return lines.join(QLatin1Char('\n'));
    }
    for (const auto* a : cell.samples) {
        QString line = tr("attempt %1, sample %2: %3")
                           .arg(a->id)
                           .arg(a->sampleIndex)
                           .arg(verdictLabel(a->verdict));
        const auto& u = a->uncertainty;
        if (a->speedupEager)
            line += tr(", %1 vs eager")
                        .arg(formatSpeedupInterval(a->speedupEager, u.eagerLow, u.eagerHigh));
        if (a->speedupCompile)
            line += tr(", %1 vs compile")
                        .arg(formatSpeedupInterval(a->speedupCompile, u.compileLow, u.compileHigh));
        if (u.noisy())
            line += tr(" — noisy timing (did not reach its precision target)");
        if (!u.regime.empty())
            line += tr(" — %1").arg(regimeLabel(u.regime));
        if (a->suspicious)
            line += a->review == "none" ? tr(" — suspicious, not reviewed")
                                        : tr(" — suspicious, %1 by a reviewer").arg(qs(a->review));
        lines << line;
        if (!a->message.empty())
            lines << QStringLiteral("    ") + qs(a->message);
    }
    lines << tr("Double-click for the attempt's details.");
    return lines.join(QLatin1Char('\n'));
}

QVariant ResultsModel::cellData(const Row& row, const Cell& cell, int modelIndex, int role) const {
    const db::AttemptRow* best = cell.best;
    const CellKind kind = best ? cellKindOf(*best) : CellKind::Empty;
    switch (role) {
    case Qt::DisplayRole:
        return cellText(cell);
    case Qt::ToolTipRole:
        return cellToolTip(row, cell, modelIndex);
    case Qt::BackgroundRole:
        return cellBackground(kind, best ? best->speedupEager : std::nullopt,
                              QGuiApplication::palette());
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(Qt::AlignCenter));
    case SortRole:
        return best ? attemptRank(*best) : -1.0;
    case AttemptIdRole:
        return QVariant::fromValue<qint64>(best ? best->id : 0);
    case CellKindRole:
        return int(kind);
    case SpeedupRole:
        return best && best->speedupEager ? QVariant(*best->speedupEager) : QVariant();
    case VerdictRole:
        return best ? qs(best->verdict) : QString();
    case ModelNameRole:
        return m_models.at(modelIndex);
    case SampleCountRole:
        return static_cast<int>(cell.samples.size());
    default:
        break;
    }
    return {};
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (section >= ColumnCount) {
        if (role == Qt::DisplayRole || role == ModelNameRole || role == Qt::ToolTipRole)
            return m_models.at(section - ColumnCount);
        return {};
    }
    if (role == Qt::DisplayRole)
        return section == LevelColumn ? tr("Level") : tr("Task");
    return {};
}

} // namespace kb::gui
