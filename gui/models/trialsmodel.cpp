#include "trialsmodel.h"

#include "data/cellstyle.h"
#include "data/format.h"

#include <QGuiApplication>

namespace kb::gui {

namespace {

QString formatError(const std::optional<double>& value) {
    return value ? QString::number(*value, 'g', 3) : QString();
}

} // namespace

TrialsModel::TrialsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void TrialsModel::setSnapshot(AttemptDetailPtr detail) {
    beginResetModel();
    m_detail = std::move(detail);
    endResetModel();
}

int TrialsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_detail ? 0 : static_cast<int>(m_detail->trials.size());
}

int TrialsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TrialsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const db::TrialRow& t = m_detail->trials[static_cast<std::size_t>(index.row())];
    if (role == PassedRole)
        return t.passed;
    if (role == Qt::BackgroundRole && index.column() == ResultColumn)
        return cellBackground(t.passed ? CellKind::Faster : CellKind::Incorrect, 2.0,
                              QGuiApplication::palette());
    if (role == Qt::DisplayRole || role == SortRole) {
        const bool sort = role == SortRole;
        switch (index.column()) {
        case TrialColumn:
            return t.index;
        case ResultColumn:
            return sort ? QVariant(t.passed) : QVariant(t.passed ? tr("passed") : tr("failed"));
        case MaxAbsErrorColumn:
            return sort ? QVariant(t.maxAbsError.value_or(-1))
                        : QVariant(formatError(t.maxAbsError));
        case MaxRelErrorColumn:
            return sort ? QVariant(t.maxRelError.value_or(-1))
                        : QVariant(formatError(t.maxRelError));
        case MismatchColumn:
            return sort ? QVariant(t.mismatchFraction.value_or(-1))
                        : QVariant(t.mismatchFraction ? formatPercent(t.mismatchFraction)
                                                      : QString());
        case MessageColumn:
            return qs(t.message);
        default:
            break;
        }
    }
    if (role == Qt::ToolTipRole && index.column() == MessageColumn)
        return qs(t.message);
    return {};
}

QVariant TrialsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TrialColumn:
        return tr("Trial");
    case ResultColumn:
        return tr("Result");
    case MaxAbsErrorColumn:
        return tr("Max abs error");
    case MaxRelErrorColumn:
        return tr("Max rel error");
    case MismatchColumn:
        return tr("Mismatched");
    case MessageColumn:
        return tr("Message");
    default:
        break;
    }
    return {};
}

} // namespace kb::gui
