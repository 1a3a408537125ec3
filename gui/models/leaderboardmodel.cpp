#include "leaderboardmodel.h"

#include "data/format.h"

namespace kb::gui {

LeaderboardModel::LeaderboardModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void LeaderboardModel::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_board = m_snapshot ? m_snapshot->leaderboard(runId) : nullptr;
    m_groupLevels.clear();
    if (m_board && !m_board->models.empty()) {
        // The weighted overall first: it is what a reader compares, and it stays in view.
        m_groupLevels.push_back(metrics::kOverallLevel);
        m_groupLevels.insert(m_groupLevels.end(), m_board->levels.begin(), m_board->levels.end());
    }
    endResetModel();
}

int LeaderboardModel::columnFor(int level, Metric metric) const {
    for (int group = 0; group < groupCount(); ++group) {
        if (groupLevel(group) == level)
            return column(group, metric);
    }
    return -1;
}

int LeaderboardModel::rowOfModel(const QString& model) const {
    if (!m_board)
        return -1;
    for (std::size_t i = 0; i < m_board->models.size(); ++i) {
        if (qs(m_board->models[i]) == model)
            return static_cast<int>(i);
    }
    return -1;
}

int LeaderboardModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_board ? 0 : static_cast<int>(m_board->models.size());
}

int LeaderboardModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount + groupCount() * MetricCount;
}

const metrics::LeaderboardCell* LeaderboardModel::cellOf(const std::string& model,
                                                         int level) const {
    return m_board ? m_board->find(model, level) : nullptr;
}

std::optional<double> LeaderboardModel::value(const metrics::LeaderboardCell& cell,
                                              Metric metric) const {
    switch (metric) {
    case PassMetric:
        return cell.tasks > 0 ? std::optional<double>(cell.passRate) : std::nullopt;
    case PassAt1Metric:
    case PassAtKMetric:
        if (const auto* p = cell.passAtKAt(metric == PassAt1Metric ? 1 : passK()))
            return p->value;
        return std::nullopt;
    case FastEagerMetric:
        if (const auto* f = cell.fastPAt(1.0))
            return f->vsEager;
        return std::nullopt;
    case FastCompileMetric:
        if (const auto* f = cell.fastPAt(1.0))
            return f->vsCompile;
        return std::nullopt;
    case GeomeanEagerMetric:
        return cell.geomeanEager;
    case GeomeanCompileMetric:
        return cell.geomeanCompile;
    case MetricCount:
        break;
    }
    return std::nullopt;
}

int LeaderboardModel::passK() const {
    return m_board && !m_board->passAtKs.empty() ? m_board->passAtKs.back() : 1;
}

QString LeaderboardModel::toolTip(const metrics::LeaderboardCell* cell, int level,
                                  Metric metric) const {
    const QString where =
        level == metrics::kOverallLevel ? tr("overall (weighted)") : tr("level %1").arg(level);
    if (!cell)
        return tr("No attempts at %1.").arg(where);
    QStringList lines;
    lines << tr("%1, %2").arg(qs(cell->model), where);
    switch (metric) {
    case PassMetric:
        lines << tr("%1 of %2 tasks correct").arg(cell->correct).arg(cell->tasks);
        if (cell->passRateCi) {
            lines << tr("95% Wilson interval: %1 – %2")
                         .arg(formatPercent(cell->passRateCi->low),
                              formatPercent(cell->passRateCi->high));
        }
        for (const auto& p : cell->passAtK)
            lines << tr("pass@%1: %2").arg(p.k).arg(formatPercent(p.value));
        break;
    case PassAt1Metric:
    case PassAtKMetric:
        for (const auto& p : cell->passAtK) {
            lines << tr("pass@%1: %2").arg(p.k).arg(formatPercent(p.value));
            if (p.tasksWithTooFewSamples > 0)
                lines << tr("%n task(s) with fewer than %1 samples left out", nullptr,
                            p.tasksWithTooFewSamples)
                             .arg(p.k);
        }
        break;
    case FastEagerMetric:
    case FastCompileMetric:
        if (const auto* f = cell->fastPAt(1.05)) {
            lines << (metric == FastEagerMetric
                          ? tr("fast_1.05 vs eager: %1").arg(formatPercent(f->vsEager))
                          : tr("fast_1.05 vs compile: %1").arg(formatPercent(f->vsCompile)));
        }
        if (metric == FastCompileMetric && !value(*cell, metric))
            lines << tr("No torch.compile baseline was measured.");
        break;
    case GeomeanEagerMetric:
        lines << tr("over %1 correct, timed tasks").arg(cell->timed);
        if (cell->geomeanEagerCi)
            lines << tr("95% bootstrap interval: %1 – %2")
                         .arg(formatSpeedup(cell->geomeanEagerCi->low),
                              formatSpeedup(cell->geomeanEagerCi->high));
        if (cell->noisy > 0)
            lines << tr("%n scoring attempt(s) with noisy timing", nullptr, cell->noisy);
        lines << tr("with failed tasks counted as 1.0×: %1")
                     .arg(formatSpeedup(cell->geomeanFallbackEager));
        if (cell->medianEager)
            lines << tr("median: %1").arg(formatSpeedup(cell->medianEager));
        break;
    case GeomeanCompileMetric:
        lines << tr("with failed tasks counted as 1.0×: %1")
                     .arg(formatSpeedup(cell->geomeanFallbackCompile));
        if (!cell->geomeanCompile)
            lines << tr("No correct task has a torch.compile speedup.");
        break;
    case MetricCount:
        break;
    }
    return lines.join(QLatin1Char('\n'));
}

QVariant LeaderboardModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const std::string& model = m_board->models[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    if (col < ColumnCount) {
        if (role == LevelRole)
            return {};
        if (role == MetricRole)
            return -1;
        if (col == ModelColumn) {
            if (role == Qt::DisplayRole || role == SortRole)
                return qs(model);
            return {};
        }
        int suspicious = 0;
        int accepted = 0;
        int rejected = 0;
        for (const auto& cell : m_board->cells) {
            if (cell.model != model)
                continue;
            suspicious += cell.suspicious;
            accepted += cell.acceptedSuspicious;
            rejected += cell.rejected;
        }
        switch (role) {
        case Qt::DisplayRole:
        case SortRole:
        case ValueRole:
            return col == SuspiciousColumn ? suspicious : rejected;
        case Qt::ToolTipRole:
            return col == SuspiciousColumn
                       ? tr("%1 attempts flagged suspicious and not reviewed (not counted); "
                            "%2 reviewed and accepted (counted)")
                             .arg(suspicious)
                             .arg(accepted)
                       : tr("%1 attempts rejected by a check or a reviewer (counted as failed)")
                             .arg(rejected);
        case Qt::TextAlignmentRole:
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        default:
            return {};
        }
    }
    const int group = (col - ColumnCount) / MetricCount;
    const auto metric = static_cast<Metric>((col - ColumnCount) % MetricCount);
    const int level = groupLevel(group);
    const metrics::LeaderboardCell* cell = cellOf(model, level);
    const std::optional<double> v = cell ? value(*cell, metric) : std::nullopt;
    switch (role) {
    case Qt::DisplayRole:
        if (metric == GeomeanEagerMetric || metric == GeomeanCompileMetric) {
            const auto& ci =
                metric == GeomeanEagerMetric ? cell->geomeanEagerCi : cell->geomeanCompileCi;
            if (v && ci)
                return formatSpeedupInterval(v, ci->low, ci->high);
            return formatSpeedup(v);
        }
        return formatPercent(v);
    case SortRole:
        return v ? *v : -1.0;
    case ValueRole:
        return v ? QVariant(*v) : QVariant();
    case LevelRole:
        return level;
    case MetricRole:
        return int(metric);
    case Qt::ToolTipRole:
        return toolTip(cell, level, metric);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    default:
        break;
    }
    return {};
}

QString LeaderboardModel::metricName(Metric metric) {
    switch (metric) {
    case PassMetric:
        return tr("Pass\nrate");
    case PassAt1Metric:
        return tr("pass@1");
    case PassAtKMetric:
        return tr("pass@k");
    case FastEagerMetric:
        return tr("fast₁\neager");
    case FastCompileMetric:
        return tr("fast₁\ncompile");
    case GeomeanEagerMetric:
        return tr("Geomean\neager");
    case GeomeanCompileMetric:
        return tr("Geomean\ncompile");
    case MetricCount:
        break;
    }
    return {};
}

QString LeaderboardModel::metricDefinition(Metric metric) {
    switch (metric) {
    case PassMetric:
        return tr("Pass rate: correct tasks / tasks of the level (missing counts as failed)");
    case PassAt1Metric:
        return tr("pass@1: unbiased estimate of the chance that one sample is correct, averaged "
                  "over the tasks");
    case PassAtKMetric:
        return tr(
            "pass@k: unbiased estimate of the chance that at least one of k samples is correct "
            "(k = samples per task), averaged over the tasks");
    case FastEagerMetric:
        return tr("fast_1 vs eager: tasks that are correct AND faster than PyTorch eager, over all "
                  "tasks");
    case FastCompileMetric:
        return tr("fast_1 vs compile: tasks that are correct AND faster than torch.compile, over "
                  "all tasks");
    case GeomeanEagerMetric:
        return tr("Geometric mean of the speedup vs eager over correct, timed tasks");
    case GeomeanCompileMetric:
        return tr("Geometric mean of the speedup vs torch.compile over correct tasks with a "
                  "compile baseline");
    case MetricCount:
        break;
    }
    return {};
}

QVariant LeaderboardModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (section < ColumnCount) {
        if (role == Qt::DisplayRole) {
            switch (section) {
            case ModelColumn:
                return tr("Model");
            case SuspiciousColumn:
                return tr("Suspicious");
            case RejectedColumn:
                return tr("Rejected");
            default:
                break;
            }
        }
        if (role == Qt::ToolTipRole && section == SuspiciousColumn)
            return tr(
                "Attempts flagged suspicious and not reviewed; they do not count until accepted");
        if (role == Qt::ToolTipRole && section == RejectedColumn)
            return tr("Attempts rejected by an anti-cheat check or by a reviewer");
        return {};
    }
    const int group = (section - ColumnCount) / MetricCount;
    const auto metric = static_cast<Metric>((section - ColumnCount) % MetricCount);
    const int level = groupLevel(group);
    const QString levelName =
        level == metrics::kOverallLevel ? tr("Overall") : tr("Level %1").arg(level);
    switch (role) {
    case Qt::DisplayRole:
        if (metric == PassAtKMetric)
            return QString(levelName + QLatin1Char('\n') + tr("pass@%1").arg(passK()));
        return QString(levelName + QLatin1Char('\n') + metricName(metric));
    case Qt::ToolTipRole:
        return metricDefinition(metric);
    case LevelRole:
        return level;
    case MetricRole:
        return int(metric);
    default:
        break;
    }
    return {};
}

} // namespace kb::gui
