#pragma once
// The main window only assembles: navigation, the pages, the database loader and settings.
// Every page owns its own widgets and models.

#include "data/candidateimporter.h"
#include "data/catalogloader.h"
#include "data/exportrunner.h"
#include "data/runplan.h"
#include "data/snapshotloader.h"

#include <QMainWindow>
#include <array>
#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QStackedWidget;

namespace kb::engine {
class KeyStore;
class RunEngine;
} // namespace kb::engine

namespace kb::gui {

class AttemptDetailPage;
class ComparePage;
class MonitorPage;
class ProvidersPage;
class SuitesPage;
class LeaderboardPage;
class PlaceholderPage;
class PlotsPage;
class ResultsPage;
class RunScopeModel;
class RunsPage;
class ScopeRouter;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Page {
        RunsPageIndex,
        ResultsPageIndex,
        LeaderboardPageIndex,
        AttemptPageIndex,
        PlotsPageIndex,
        ComparePageIndex,
        MonitorPageIndex,
        ProvidersPageIndex,
        SuitesPageIndex,
        PageCount
    };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts loading a database in the background; snapshotApplied or loadFailed follows.
    void openDatabase(const QString& path);
    QString databasePath() const { return m_databasePath; }
    SnapshotPtr snapshot() const { return m_snapshot; }
    // A database or a scope is being read.
    bool isLoading() const;
    // Databases with more attempts than this are read one scope (run) at a time, and pages
    // that are not shown follow a new scope when they are shown (ScopeRouter).
    void setWholeReadLimit(std::int64_t attempts) { m_wholeReadLimit = attempts; }
    static constexpr std::int64_t kDefaultWholeReadLimit = 50000;

    // The run the result pages show (0 = all runs).
    db::Id runScope() const { return m_runScope.value_or(0); }
    void setRunScope(db::Id runId);

    void showPage(Page page);
    Page currentPage() const;
    bool isShowingPlaceholder() const;
    QString errorText() const; // the error banner's text; empty when hidden

    RunsPage* runsPage() const { return m_runsPage; }
    ResultsPage* resultsPage() const { return m_resultsPage; }
    LeaderboardPage* leaderboardPage() const { return m_leaderboardPage; }
    AttemptDetailPage* attemptPage() const { return m_attemptPage; }
    PlotsPage* plotsPage() const { return m_plotsPage; }
    ComparePage* comparePage() const { return m_comparePage; }
    ProvidersPage* providersPage() const { return m_providersPage; }
    MonitorPage* monitorPage() const { return m_monitorPage; }
    SuitesPage* suitesPage() const { return m_suitesPage; }
    CatalogPtr catalog() const { return m_catalog; }
    bool isLoadingCatalog() const { return m_catalogLoader->isLoading(); }
    PlaceholderPage* placeholder() const { return m_placeholder; }
    QAction* pageAction(Page page) const {
        return m_pageActions.at(static_cast<std::size_t>(page));
    }

    void saveSettings() const;
    void restoreSettings();

    // Writes an export of the Results page's current filter (File → Export), or of the Compare
    // page's two models with their paired comparison while it is shown; exportFinished follows.
    void exportTo(report::ExportFormat format, const QString& path);
    GuiExportFilter currentExportFilter() const;
    // File → Export as → KernelBench run folders: every model and level of the run in scope,
    // one <dir>/<model>_level<L>/ each; refused (exportFinished with the error) when one of
    // them exists in dir already.
    void exportKernelBenchRunsTo(const QString& dir);

    // File → Import candidates: stores the candidates as a new run (as kbstudio-cli
    // import-candidates), shows it, and starts it as asked. Returns the run id, or 0 with *error
    // set (nothing stored). A run stored but not started has *error empty.
    db::Id importCandidates(const CandidateImportRequest& request, ImportedRunStart start,
                            QString* error);

    // Creates the planned run and starts it here (in-process engine) or in the background
    // (detached kbstudio-cli); shows the monitor. Returns the run id, or 0 with *error set.
    db::Id launchRun(const RunPlan& plan, bool inBackground, QString* error);
    engine::RunEngine* runEngine() const { return m_engine.get(); }
    // Evaluates a stored run (an imported one not started yet, or one interrupted) here or in
    // the background, as `kbstudio-cli run --resume ID`; shows the monitor. Empty string or a
    // readable error.
    QString evaluateRun(db::Id runId, bool inBackground);

public Q_SLOTS:
    void reload();
    void newRunDialog();
    void exportWithDialog();
    void exportKernelBenchRunsWithDialog();
    void importCandidatesDialog();
    void evaluateRunInScopeDialog();
    void openDatabaseDialog();
    void showAttempt(kb::db::Id attemptId);

Q_SIGNALS:
    void snapshotApplied();
    // The result pages now show this scope's attempts (after a load, or at once when read).
    void scopeApplied(kb::db::Id runId);
    void catalogApplied();
    void exportFinished(const QString& error, const QString& summary);
    void loadFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    // Evaluates a stored run here (in-process engine) or in the background (detached
    // kbstudio-cli); an empty string or a readable error.
    QString startRun(db::Id runId, bool inBackground);
    // Shows a new or started run: scope, reload, and the monitor.
    void showStartedRun(db::Id runId);
    void applySnapshot(const SnapshotPtr& snapshot);
    void applyFailure(const QString& path, const QString& message, bool missingFile);
    void applyScope();
    void showError(const QString& message);
    void updateStatus();

    void reloadCatalog();
    // The result pages show the placeholder while there are no runs; the catalog pages
    // (providers, suites) work on any open database.
    static bool pageNeedsRuns(Page page);
    void updateOuter();

    SnapshotLoader* m_loader;
    ScopeRouter* m_scopes;
    std::int64_t m_wholeReadLimit = kDefaultWholeReadLimit;
    void exportFormatWithDialog(report::ExportFormat format);

    CatalogLoader* m_catalogLoader;
    ExportRunner* m_exporter;
    CatalogPtr m_catalog;
    std::unique_ptr<engine::KeyStore> m_keys;
    std::unique_ptr<engine::RunEngine> m_engine; // in-process runs; created on first use
    QString m_databasePath;
    SnapshotPtr m_snapshot;
    std::optional<db::Id> m_runScope; // nullopt until chosen: the newest run

    QLabel* m_banner;
    QStackedWidget* m_outer;
    QStackedWidget* m_pages;
    PlaceholderPage* m_placeholder;
    RunsPage* m_runsPage;
    ResultsPage* m_resultsPage;
    LeaderboardPage* m_leaderboardPage;
    AttemptDetailPage* m_attemptPage;
    PlotsPage* m_plotsPage;
    ComparePage* m_comparePage;
    ProvidersPage* m_providersPage;
    MonitorPage* m_monitorPage;
    SuitesPage* m_suitesPage;
    RunScopeModel* m_scopeModel;
    QComboBox* m_scopeBox;
    QLabel* m_status;
    std::array<QAction*, PageCount> m_pageActions{};
};

} // namespace kb::gui
