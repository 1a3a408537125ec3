#include "findingsmodel.h"

#include "data/cellstyle.h"
#include "data/findingexplanations.h"
#include "data/format.h"

#include <QGuiApplication>

namespace kb::gui {

namespace {

int severityRank(const std::string& severity) {
    if (severity == "reject")
        return 2;
    if (severity == "suspicious")
        return 1;
    return 0;
}

} // namespace

FindingsModel::FindingsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void FindingsModel::setSnapshot(AttemptDetailPtr detail) {
    beginResetModel();
    m_detail = std::move(detail);
    endResetModel();
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_detail ? 0 : static_cast<int>(m_detail->findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const db::FindingRow& f = m_detail->findings[static_cast<std::size_t>(index.row())];
    switch (role) {
    case SeverityRole:
        return qs(f.severity);
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        switch (index.column()) {
        case SeverityColumn:
            return qs(f.severity);
        case RuleColumn:
            return qs(f.rule);
        case LocationColumn:
            return qs(f.location);
        case MessageColumn:
            return qs(f.message);
        case ExplanationColumn:
            return findingExplanation(f.rule);
        default:
            break;
        }
        break;
    case SortRole:
        if (index.column() == SeverityColumn)
            return severityRank(f.severity);
        return index.data(Qt::DisplayRole);
    case Qt::BackgroundRole:
        if (index.column() == SeverityColumn && severityRank(f.severity) > 0) {
            return cellBackground(severityRank(f.severity) == 2 ? CellKind::Rejected
                                                                : CellKind::Suspicious,
                                  std::nullopt, QGuiApplication::palette());
        }
        break;
    default:
        break;
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case RuleColumn:
        return tr("Rule");
    case LocationColumn:
        return tr("Where");
    case MessageColumn:
        return tr("Finding");
    case ExplanationColumn:
        return tr("Why it matters");
    default:
        break;
    }
    return {};
}

} // namespace kb::gui
