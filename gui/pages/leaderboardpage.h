#pragma once
// The leaderboard of the run in scope (CUDA-Agent Table 1 layout), sortable, with the metric
// definitions one click away.

#include "data/snapshot.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSettings;
class QTableView;

namespace kb::gui {

class LeaderboardColumnFilter;
class LeaderboardModel;

class LeaderboardPage : public QWidget {
    Q_OBJECT
public:
    explicit LeaderboardPage(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    LeaderboardModel* model() const { return m_model; }
    LeaderboardColumnFilter* proxy() const { return m_proxy; }
    // Which metric groups show: LeaderboardColumnFilter::AllLevels, 0 (overall) or a level.
    void setLevelShown(int level);
    QTableView* view() const { return m_view; }
    QString markdown() const; // the current board as a Markdown table

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

public Q_SLOTS:
    void showDefinitions();
    void copyMarkdown();

private:
    LeaderboardModel* m_model;
    LeaderboardColumnFilter* m_proxy;
    QComboBox* m_levelChoice;
    QTableView* m_view;
    QLabel* m_header;
    QLabel* m_footer;
};

} // namespace kb::gui
