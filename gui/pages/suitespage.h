#pragma once
// Suites & tasks: import a suite folder (KernelBench levels or suite.json) or a JSON-lines file
// of KernelBench's Hugging Face dataset, browse its tasks
// with level, operators and validation flags, and read a task's highlighted source and its
// stored baselines per GPU.

#include "data/catalog.h"

#include <QWidget>
#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSettings;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace kb::gui {

class BaselinesModel;
class SuiteTasksModel;

class SuitesPage : public QWidget {
    Q_OBJECT
public:
    explicit SuitesPage(QWidget* parent = nullptr);

    void setDatabasePath(const QString& path) { m_databasePath = path; }
    void setCatalog(CatalogPtr catalog);
    void setSuite(db::Id suiteId);  // 0 = every suite
    void setLevelFilter(int level); // 0 = every level
    void setFlaggedOnly(bool flagged);
    void selectTask(db::Id taskId);

    // Imports a folder into the open database; catalogChanged() follows on success.
    QString importFolder(const QString& folder);
    // Tests choose the folder through this hook instead of a file dialog.
    std::function<QString()> folderDialogHook;
    // Imports a JSON-lines file ({"name", "level", "problem_id", "code"} per line); a file with
    // any unusable line is refused whole and the page shows every problem.
    QString importJsonl(const QString& file);
    // Tests choose the file through this hook instead of a file dialog.
    std::function<QString()> jsonlDialogHook;

    SuiteTasksModel* tasksModel() const { return m_tasks; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    BaselinesModel* baselinesModel() const { return m_baselines; }
    QString sourceText() const;
    QString taskHeaderText() const;
    QString statusText() const;

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

Q_SIGNALS:
    void catalogChanged();

public Q_SLOTS:
    void importWithDialog();
    void importJsonlWithDialog();

private:
    void showTask(const QModelIndex& proxyIndex);
    void fillSuites();
    void showImportOutcome(const QString& error, const QString& summary);

    QString m_databasePath;
    CatalogPtr m_catalog;
    QComboBox* m_suite;
    QComboBox* m_level;
    QComboBox* m_flags;
    QLineEdit* m_search;
    SuiteTasksModel* m_tasks;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_header;
    QPlainTextEdit* m_source;
    BaselinesModel* m_baselines;
    QTableView* m_baselineView;
    QLabel* m_status;
    QLabel* m_empty;
    QSplitter* m_splitter;
    QSplitter* m_detailSplitter;
};

} // namespace kb::gui
