#include "leaderboardcolumnfilter.h"

#include "leaderboardmodel.h"

namespace kb::gui {

LeaderboardColumnFilter::LeaderboardColumnFilter(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(LeaderboardModel::SortRole);
}

void LeaderboardColumnFilter::setLevel(int level) {
    if (level == m_level)
        return;
    m_level = level;
    invalidateColumnsFilter();
}

bool LeaderboardColumnFilter::filterAcceptsColumn(int sourceColumn,
                                                  const QModelIndex& sourceParent) const {
    Q_UNUSED(sourceParent)
    if (m_level == AllLevels || sourceColumn < LeaderboardModel::ColumnCount)
        return true;
    return sourceModel()
               ->headerData(sourceColumn, Qt::Horizontal, LeaderboardModel::LevelRole)
               .toInt() == m_level;
}

} // namespace kb::gui
