#pragma once
// The runs of the open database. Selecting a run makes it the scope of the result pages.

#include "data/snapshot.h"

#include <QWidget>

class QLabel;
class QSettings;
class QSortFilterProxyModel;
class QTableView;

namespace kb::gui {

class RunsModel;

class RunsPage : public QWidget {
    Q_OBJECT
public:
    explicit RunsPage(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    void selectRun(db::Id runId); // 0 clears the selection
    RunsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

Q_SIGNALS:
    void runSelected(kb::db::Id runId);
    void runActivated(kb::db::Id runId); // double-click or Enter: show its results

private:
    RunsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_summary;
    bool m_selecting = false;
    bool m_sized = false; // columns fitted to their contents once
};

} // namespace kb::gui
