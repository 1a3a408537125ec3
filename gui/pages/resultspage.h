#pragma once
// The tasks x models grid of the run in scope, with filters (level, model, verdict, text) that
// are remembered between sessions, and a side panel describing the selected cell.

#include "data/snapshot.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSettings;
class QSplitter;
class QTableView;
class QTextBrowser;

namespace kb::gui {

class ResultsFilterProxy;
class ResultsModel;

class ResultsPage : public QWidget {
    Q_OBJECT
public:
    explicit ResultsPage(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    ResultsModel* model() const { return m_model; }
    ResultsFilterProxy* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }

    // Filter controls (also used by tests and settings).
    void setLevelFilter(int level);
    void setModelFilter(const QString& model);
    void setVerdictFilterKey(const QString& key);
    void setSearchText(const QString& text);
    void setFlaggedOnly(bool flagged);
    void setSpeedupRange(double min, double max); // 0 = no bound

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

Q_SIGNALS:
    void attemptActivated(kb::db::Id attemptId);

private:
    void rebuildFilterChoices();
    void applyFilters();
    void showCellDetails(const QModelIndex& proxyIndex);
    void persistFilters() const;

    ResultsModel* m_model;
    ResultsFilterProxy* m_proxy;
    QComboBox* m_level;
    QComboBox* m_modelChoice;
    QComboBox* m_verdict;
    QLineEdit* m_search;
    QCheckBox* m_flagged;
    QDoubleSpinBox* m_speedupMin;
    QDoubleSpinBox* m_speedupMax;
    QLabel* m_scope;
    QLabel* m_legend;
    QTableView* m_view;
    QTextBrowser* m_cellInfo;
    QSplitter* m_splitter;
    // Wanted filter values, kept even while the current snapshot lacks them.
    int m_wantedLevel = 0;
    QString m_wantedModel;
    bool m_updatingChoices = false;
};

} // namespace kb::gui
