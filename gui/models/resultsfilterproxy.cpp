#include "resultsfilterproxy.h"

#include "resultsmodel.h"

namespace kb::gui {

ResultsFilterProxy::ResultsFilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(ResultsModel::SortRole);
}

void ResultsFilterProxy::setLevel(int level) {
    if (level == m_level)
        return;
    m_level = level;
    invalidateRowsFilter();
}

void ResultsFilterProxy::setModelName(const QString& model) {
    if (model == m_model)
        return;
    m_model = model;
    // the verdict filter looks at visible model columns only
    invalidateFilter();
}

void ResultsFilterProxy::setVerdictFilter(VerdictFilter filter) {
    if (filter == m_verdict)
        return;
    m_verdict = filter;
    invalidateRowsFilter();
}

void ResultsFilterProxy::setSearchText(const QString& text) {
    const QString trimmed = text.trimmed();
    if (trimmed == m_search)
        return;
    m_search = trimmed;
    invalidateRowsFilter();
}

QString ResultsFilterProxy::verdictFilterKey(VerdictFilter filter) {
    switch (filter) {
    case VerdictFilter::Correct:
        return QStringLiteral("correct");
    case VerdictFilter::Faster:
        return QStringLiteral("faster");
    case VerdictFilter::Slower:
        return QStringLiteral("slower");
    case VerdictFilter::Failed:
        return QStringLiteral("failed");
    case VerdictFilter::Suspicious:
        return QStringLiteral("suspicious");
    case VerdictFilter::Pending:
        return QStringLiteral("pending");
    case VerdictFilter::All:
        break;
    }
    return QStringLiteral("all");
}

ResultsFilterProxy::VerdictFilter ResultsFilterProxy::verdictFilterFromKey(const QString& key) {
    for (auto f : {VerdictFilter::Correct, VerdictFilter::Faster, VerdictFilter::Slower,
                   VerdictFilter::Failed, VerdictFilter::Suspicious, VerdictFilter::Pending}) {
        if (verdictFilterKey(f) == key)
            return f;
    }
    return VerdictFilter::All;
}

bool ResultsFilterProxy::cellMatches(const QModelIndex& index) const {
    const auto kind = static_cast<CellKind>(index.data(ResultsModel::CellKindRole).toInt());
    switch (m_verdict) {
    case VerdictFilter::All:
        return true;
    case VerdictFilter::Correct:
        return kind == CellKind::Faster || kind == CellKind::Slower ||
               kind == CellKind::CorrectUntimed;
    case VerdictFilter::Faster:
        return kind == CellKind::Faster;
    case VerdictFilter::Slower:
        return kind == CellKind::Slower;
    case VerdictFilter::Failed:
        return kind == CellKind::Incorrect || kind == CellKind::Failed ||
               kind == CellKind::Rejected;
    case VerdictFilter::Suspicious:
        return kind == CellKind::Suspicious;
    case VerdictFilter::Pending:
        return kind == CellKind::Pending;
    }
    return true;
}

bool ResultsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QAbstractItemModel* source = sourceModel();
    const QModelIndex first = source->index(sourceRow, 0, sourceParent);
    if (m_level != 0 && first.data(ResultsModel::LevelRole).toInt() != m_level)
        return false;
    if (!m_search.isEmpty() && !first.data(ResultsModel::SearchTextRole)
                                    .toString()
                                    .contains(m_search, Qt::CaseInsensitive))
        return false;
    if (m_flaggedOnly && !first.data(ResultsModel::FlaggedRole).toBool())
        return false;
    if (m_verdict == VerdictFilter::All && m_speedupMin <= 0 && m_speedupMax <= 0)
        return true;
    for (int column = ResultsModel::ColumnCount; column < source->columnCount(sourceParent);
         ++column) {
        if (!filterAcceptsColumn(column, sourceParent))
            continue;
        const QModelIndex cell = source->index(sourceRow, column, sourceParent);
        if (cellMatches(cell) && speedupMatches(cell))
            return true;
    }
    return false;
}

bool ResultsFilterProxy::speedupMatches(const QModelIndex& index) const {
    if (m_speedupMin <= 0 && m_speedupMax <= 0)
        return true;
    const QVariant v = index.data(ResultsModel::SpeedupRole);
    if (!v.isValid())
        return false;
    const double speedup = v.toDouble();
    return (m_speedupMin <= 0 || speedup >= m_speedupMin) &&
           (m_speedupMax <= 0 || speedup <= m_speedupMax);
}

void ResultsFilterProxy::setFlaggedOnly(bool flagged) {
    if (m_flaggedOnly == flagged)
        return;
    m_flaggedOnly = flagged;
    invalidateFilter();
}

void ResultsFilterProxy::setSpeedupRange(double min, double max) {
    if (m_speedupMin == min && m_speedupMax == max)
        return;
    m_speedupMin = min;
    m_speedupMax = max;
    invalidateFilter();
}

bool ResultsFilterProxy::filterAcceptsColumn(int sourceColumn,
                                             const QModelIndex& sourceParent) const {
    Q_UNUSED(sourceParent)
    if (sourceColumn < ResultsModel::ColumnCount || m_model.isEmpty())
        return true;
    return sourceModel()
               ->headerData(sourceColumn, Qt::Horizontal, ResultsModel::ModelNameRole)
               .toString() == m_model;
}

} // namespace kb::gui
