#pragma once
// Shows the leaderboard's metric groups of every level, or of one level only, and sorts.

#include <QSortFilterProxyModel>

namespace kb::gui {

class LeaderboardColumnFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    static constexpr int AllLevels = -1;

    explicit LeaderboardColumnFilter(QObject* parent = nullptr);

    // AllLevels, 0 (the weighted overall) or a level number.
    void setLevel(int level);
    int level() const { return m_level; }

protected:
    bool filterAcceptsColumn(int sourceColumn, const QModelIndex& sourceParent) const override;

private:
    int m_level = AllLevels;
};

} // namespace kb::gui
