#include "mainwindow.h"

#include "core/error.h"
#include "core/paths.h"
#include "data/runlauncher.h"
#include "generation/providerclients.h"
#include "models/runscopemodel.h"
#include "pages/attemptdetailpage.h"
#include "pages/comparepage.h"
#include "pages/importcandidatesdialog.h"
#include "pages/leaderboardpage.h"
#include "pages/monitorpage.h"
#include "pages/placeholderpage.h"
#include "pages/plotspage.h"
#include "pages/providerspage.h"
#include "pages/resultspage.h"
#include "pages/runlauncherdialog.h"
#include "pages/runspage.h"
#include "pages/suitespage.h"
#include "providers/keystore.h"
#include "run/runengine.h"
#include "scoperouter.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

namespace kb::gui {

namespace {

const char* const kDemoCommand = "kbstudio-cli run --suite sample --models demo-a,demo-b";

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_loader(new SnapshotLoader(this))
    , m_scopes(new ScopeRouter(this))
    , m_catalogLoader(new CatalogLoader(this))
    , m_exporter(new ExportRunner(this))
    , m_keys(engine::defaultKeyStore())
    , m_banner(new QLabel(this))
    , m_outer(new QStackedWidget(this))
    , m_pages(new QStackedWidget(this))
    , m_placeholder(new PlaceholderPage(this))
    , m_runsPage(new RunsPage(this))
    , m_resultsPage(new ResultsPage(this))
    , m_leaderboardPage(new LeaderboardPage(this))
    , m_attemptPage(new AttemptDetailPage(this))
    , m_plotsPage(new PlotsPage(this))
    , m_comparePage(new ComparePage(this))
    , m_providersPage(new ProvidersPage(this))
    , m_monitorPage(new MonitorPage(this))
    , m_suitesPage(new SuitesPage(this))
    , m_scopeModel(new RunScopeModel(this))
    , m_scopeBox(new QComboBox(this))
    , m_status(new QLabel(this)) {
    setWindowTitle(tr("KernelBench Studio"));
    m_pages->insertWidget(RunsPageIndex, m_runsPage);
    m_pages->insertWidget(ResultsPageIndex, m_resultsPage);
    m_pages->insertWidget(LeaderboardPageIndex, m_leaderboardPage);
    m_pages->insertWidget(AttemptPageIndex, m_attemptPage);
    m_pages->insertWidget(PlotsPageIndex, m_plotsPage);
    m_pages->insertWidget(ComparePageIndex, m_comparePage);
    m_pages->insertWidget(MonitorPageIndex, m_monitorPage);
    m_pages->insertWidget(ProvidersPageIndex, m_providersPage);
    m_pages->insertWidget(SuitesPageIndex, m_suitesPage);
    m_providersPage->setKeyStore(m_keys.get());
    m_comparePage->setScopeCache(m_scopes->cache());
    m_scopes->addPage(ResultsPageIndex, [this](const SnapshotPtr& s, db::Id runId) {
        m_resultsPage->setSnapshot(s, runId);
    });
    m_scopes->addPage(LeaderboardPageIndex, [this](const SnapshotPtr& s, db::Id runId) {
        m_leaderboardPage->setSnapshot(s, runId);
    });
    m_scopes->addPage(PlotsPageIndex, [this](const SnapshotPtr& s, db::Id runId) {
        m_plotsPage->setSnapshot(s, runId);
    });
    m_scopes->addPage(ComparePageIndex, [this](const SnapshotPtr& s, db::Id runId) {
        m_comparePage->setSnapshot(s, runId);
    });
    m_outer->addWidget(m_placeholder);
    m_outer->addWidget(m_pages);

    m_banner->setObjectName(QStringLiteral("errorBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet(
        QStringLiteral("QLabel#errorBanner { background-color: #c62828; color: white; "
                       "padding: 6px; border-radius: 3px; }"));
    m_banner->hide();

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_banner);
    layout->addWidget(m_outer, 1);
    setCentralWidget(central);

    m_scopeBox->setModel(m_scopeModel);
    m_scopeBox->setObjectName(QStringLiteral("runScope"));
    m_scopeBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scopeBox->setToolTip(tr("Which run the Results, Leaderboard and Plots pages show"));
    statusBar()->addWidget(m_status, 1);

    createActions();

    connect(m_loader, &SnapshotLoader::loaded, this, &MainWindow::applySnapshot);
    connect(m_loader, &SnapshotLoader::failed, this, &MainWindow::applyFailure);
    connect(m_scopes, &ScopeRouter::applied, this,
            [this](const SnapshotPtr& snapshot, db::Id runId) {
                m_snapshot = snapshot;
                updateStatus();
                Q_EMIT scopeApplied(runId);
            });
    connect(m_scopes, &ScopeRouter::reading, this, [this](db::Id runId) {
        m_status->setText(runId == 0 ? tr("Reading the attempts of every run…")
                                     : tr("Reading the attempts of run %1…").arg(runId));
    });
    connect(m_scopes, &ScopeRouter::failed, this, [this](db::Id runId, const QString& message) {
        showError(tr("Cannot read the attempts of %1: %2")
                      .arg(runId == 0 ? tr("every run") : tr("run %1").arg(runId), message));
        updateStatus();
    });
    connect(m_catalogLoader, &CatalogLoader::loaded, this, [this](const CatalogPtr& catalog) {
        m_catalog = catalog;
        m_providersPage->setCatalog(catalog);
        m_suitesPage->setCatalog(catalog);
        Q_EMIT catalogApplied();
    });
    connect(m_catalogLoader, &CatalogLoader::failed, this, [this](const QString& message) {
        m_catalog.reset();
        m_providersPage->setCatalog(nullptr);
        m_suitesPage->setCatalog(nullptr);
        if (m_snapshot) // a missing or unreadable file is already reported by the snapshot load
            showError(message);
    });
    connect(m_providersPage, &ProvidersPage::catalogChanged, this, &MainWindow::reloadCatalog);
    connect(m_exporter, &ExportRunner::finished, this,
            [this](const QString& error, const QString& summary) {
                if (!error.isEmpty())
                    showError(error);
                else
                    m_status->setText(summary);
                Q_EMIT exportFinished(error, summary);
            });
    connect(m_suitesPage, &SuitesPage::catalogChanged, this, &MainWindow::reloadCatalog);
    connect(m_placeholder, &PlaceholderPage::openRequested, this, &MainWindow::openDatabaseDialog);
    connect(m_scopeBox, &QComboBox::activated, this,
            [this](int row) { setRunScope(m_scopeModel->runIdAt(row)); });
    connect(m_runsPage, &RunsPage::runSelected, this, &MainWindow::setRunScope);
    connect(m_runsPage, &RunsPage::runActivated, this, [this](db::Id runId) {
        setRunScope(runId);
        showPage(ResultsPageIndex);
    });
    connect(m_resultsPage, &ResultsPage::attemptActivated, this, &MainWindow::showAttempt);
    connect(m_attemptPage, &AttemptDetailPage::backRequested, this,
            [this]() { showPage(ResultsPageIndex); });
    connect(m_attemptPage, &AttemptDetailPage::reviewWritten, this, &MainWindow::reload);

    m_placeholder->setMessage(tr("No database open"),
                              tr("Open a KernelBench Studio database (Ctrl+O)."));
    m_outer->setCurrentWidget(m_placeholder);
    showPage(RunsPageIndex);
    resize(1280, 800);
}

MainWindow::~MainWindow() = default;

bool MainWindow::isLoading() const {
    return m_loader->isLoading() || m_scopes->isReading();
}

void MainWindow::createActions() {
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    auto* open = fileMenu->addAction(tr("&Open database…"), this, &MainWindow::openDatabaseDialog);
    open->setShortcut(QKeySequence::Open);
    auto* reloadAction = fileMenu->addAction(tr("&Reload"), this, &MainWindow::reload);
    QList<QKeySequence> reloadKeys{QKeySequence(Qt::Key_F5)};
    for (const QKeySequence& key : QKeySequence::keyBindings(QKeySequence::Refresh)) {
        if (!reloadKeys.contains(key))
            reloadKeys << key;
    }
    reloadAction->setShortcuts(reloadKeys);
    fileMenu->addSeparator();
    auto* newRun = fileMenu->addAction(tr("&New run…"), this, &MainWindow::newRunDialog);
    newRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    newRun->setToolTip(tr("Choose models, tasks and settings, see the estimate, and start a run"));
    auto* exportAction = fileMenu->addAction(tr("&Export…"), this, &MainWindow::exportWithDialog);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction->setToolTip(tr("Export what the Results page's filter selects"));
    auto* exportMenu = fileMenu->addMenu(tr("Export &as"));
    const std::array<std::pair<report::ExportFormat, QString>, 8> formats = {{
        {report::ExportFormat::Html, tr("&HTML report…")},
        {report::ExportFormat::Pdf, tr("&PDF report…")},
        {report::ExportFormat::Markdown, tr("&Markdown leaderboard…")},
        {report::ExportFormat::LeaderboardCsv, tr("&Leaderboard as CSV…")},
        {report::ExportFormat::Csv, tr("Attempts as &CSV…")},
        {report::ExportFormat::Json, tr("Attempts as &JSON…")},
        {report::ExportFormat::SamplesCsv, tr("Timing &samples as CSV…")},
        {report::ExportFormat::KernelBench, tr("&KernelBench eval_results.json…")},
    }};
    for (const auto& [format, text] : formats)
        exportMenu->addAction(text, this, [this, f = format]() { exportFormatWithDialog(f); });
    auto* runFolders = exportMenu->addAction(tr("KernelBench &run folders (every model)…"), this,
                                             &MainWindow::exportKernelBenchRunsWithDialog);
    runFolders->setToolTip(tr("One KernelBench run folder per model and level of the run in "
                              "scope, for KernelBench's analysis scripts"));
    auto* importCandidatesAction =
        fileMenu->addAction(tr("&Import candidates…"), this, &MainWindow::importCandidatesDialog);
    importCandidatesAction->setToolTip(
        tr("Evaluate kernels written elsewhere: a KernelBench run folder or a JSON-lines file"));
    auto* evaluateAction = fileMenu->addAction(tr("E&valuate the run in scope…"), this,
                                               &MainWindow::evaluateRunInScopeDialog);
    evaluateAction->setToolTip(tr("Evaluate the queued attempts of a stored run (an imported run "
                                  "not started yet, or an interrupted one)"));
    fileMenu->addSeparator();
    auto* quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto* navigation = new QToolBar(tr("Pages"), this);
    navigation->setObjectName(QStringLiteral("pagesToolBar"));
    navigation->setMovable(false);
    navigation->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* group = new QActionGroup(this);
    auto* viewMenu = menuBar()->addMenu(tr("&View"));
    const std::array<QString, PageCount> names = {tr("Runs"),    tr("Results"),   tr("Leaderboard"),
                                                  tr("Attempt"), tr("Plots"),     tr("Compare"),
                                                  tr("Monitor"), tr("Providers"), tr("Suites")};
    for (int page = 0; page < PageCount; ++page) {
        auto* action = new QAction(names[static_cast<std::size_t>(page)], this);
        action->setCheckable(true);
        action->setShortcut(QKeySequence(
            QKeyCombination(Qt::ControlModifier, static_cast<Qt::Key>(Qt::Key_1 + page))));
        action->setToolTip(tr("%1 (%2)").arg(
            action->text(), action->shortcut().toString(QKeySequence::NativeText)));
        group->addAction(action);
        navigation->addAction(action);
        viewMenu->addAction(action);
        connect(action, &QAction::triggered, this,
                [this, page]() { showPage(static_cast<Page>(page)); });
        m_pageActions[static_cast<std::size_t>(page)] = action;
    }

    auto* tools = new QToolBar(tr("Database"), this);
    tools->setObjectName(QStringLiteral("databaseToolBar"));
    tools->setMovable(false);
    tools->addAction(open);
    tools->addAction(reloadAction);
    tools->addSeparator();
    tools->addWidget(new QLabel(tr(" Scope: "), this));
    tools->addWidget(m_scopeBox);

    addToolBar(Qt::TopToolBarArea, tools);
    addToolBar(Qt::LeftToolBarArea, navigation);

    auto* helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("Metric &definitions"), m_leaderboardPage,
                        &LeaderboardPage::showDefinitions);
    helpMenu->addAction(tr("&About KernelBench Studio"), this, [this]() {
        QMessageBox::about(this, tr("About KernelBench Studio"),
                           tr("<b>KernelBench Studio %1</b><p>Measures how well LLMs write fast, "
                              "correct GPU kernels.</p>")
                               .arg(QStringLiteral(KBSTUDIO_VERSION)));
    });
}

void MainWindow::openDatabase(const QString& path) {
    if (m_engine && path != m_databasePath && !m_engine->isRunning()) {
        m_monitorPage->setEngine(nullptr);
        m_engine.reset(); // an idle engine of the previous database
    }
    m_databasePath = path;
    m_attemptPage->setDatabasePath(path);
    m_providersPage->setDatabasePath(path);
    m_suitesPage->setDatabasePath(path);
    m_monitorPage->setDatabasePath(path);
    m_status->setText(tr("Loading %1…").arg(QDir::toNativeSeparators(path)));
    setWindowTitle(tr("%1 — KernelBench Studio").arg(QFileInfo(path).fileName()));
    m_scopes->cache()->setDatabase(path);
    ScopeRequest request;
    request.wholeReadLimit = m_wholeReadLimit;
    request.wanted = m_runScope;
    request.cached = m_scopes->cache()->entries();
    m_loader->load(path, std::move(request));
    reloadCatalog();
}

void MainWindow::reloadCatalog() {
    if (!m_databasePath.isEmpty())
        m_catalogLoader->load(m_databasePath);
}

void MainWindow::reload() {
    if (!m_databasePath.isEmpty())
        openDatabase(m_databasePath);
}

GuiExportFilter MainWindow::currentExportFilter() const {
    if (currentPage() == ComparePageIndex) {
        if (auto f = compareExportFilter(m_comparePage->sideA(), m_comparePage->sideB()))
            return *f;
    }
    return exportFilterFor(*m_resultsPage->proxy(), runScope());
}

void MainWindow::exportTo(report::ExportFormat format, const QString& path) {
    if (m_databasePath.isEmpty()) {
        Q_EMIT exportFinished(tr("Open a database first."), {});
        return;
    }
    m_status->setText(tr("Exporting %1…").arg(report::exportFormatName(format)));
    m_exporter->start(m_databasePath, format, currentExportFilter().filter, path);
}

void MainWindow::exportWithDialog() {
    QStringList names = report::exportFormatNames();
    bool ok = false;
    const QString name = QInputDialog::getItem(
        this, tr("Export"), tr("Export %1 as:").arg(currentExportFilter().description), names, 0,
        false, &ok);
    if (ok)
        exportFormatWithDialog(*report::exportFormatFromName(name));
}

void MainWindow::exportFormatWithDialog(report::ExportFormat format) {
    if (m_databasePath.isEmpty()) {
        showError(tr("Open a database before exporting (Ctrl+O)."));
        return;
    }
    const GuiExportFilter f = currentExportFilter();
    if (!f.note.isEmpty())
        QMessageBox::information(this, tr("Export"), f.note);
    const QString start =
        QFileInfo(m_databasePath).absoluteDir().filePath(defaultExportFileName(format));
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export %1 (%2)").arg(report::exportFormatName(format), f.description), start);
    if (!path.isEmpty())
        exportTo(format, path);
}

void MainWindow::exportKernelBenchRunsTo(const QString& dir) {
    if (m_databasePath.isEmpty()) {
        Q_EMIT exportFinished(tr("Open a database first."), {});
        return;
    }
    m_status->setText(tr("Exporting KernelBench run folders…"));
    m_exporter->startKernelBenchRuns(m_databasePath, kernelBenchRunsFilter(runScope()).filter, dir);
}

void MainWindow::exportKernelBenchRunsWithDialog() {
    if (m_databasePath.isEmpty()) {
        showError(tr("Open a database before exporting (Ctrl+O)."));
        return;
    }
    const GuiExportFilter f = kernelBenchRunsFilter(runScope());
    const QString dir = QFileDialog::getExistingDirectory(
        this,
        tr("KernelBench run folders (%1): choose the folder to write them into").arg(f.description),
        QFileInfo(m_databasePath).absolutePath());
    if (!dir.isEmpty())
        exportKernelBenchRunsTo(dir);
}

void MainWindow::openDatabaseDialog() {
    const QString start =
        m_databasePath.isEmpty() ? engine::dataDir() : QFileInfo(m_databasePath).absolutePath();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open database"), start,
        tr("KernelBench Studio databases (*.kbdb *.db *.sqlite);;All files (*)"));
    if (!path.isEmpty()) {
        m_runScope.reset();
        openDatabase(path);
    }
}

void MainWindow::applySnapshot(const SnapshotPtr& snapshot) {
    m_snapshot = snapshot;
    m_banner->hide();
    m_banner->clear();
    if (!snapshot->hasRuns()) {
        m_placeholder->setMessage(
            tr("No runs yet"),
            tr("%1 holds no runs. Run the demo:\n\n%2\n\nthen press F5 to reload.")
                .arg(QDir::toNativeSeparators(snapshot->databasePath),
                     QString::fromLatin1(kDemoCommand)));
    }
    updateOuter();
    if (snapshot->scope && !snapshot->scope->everyRun) {
        m_runScope =
            snapshot->scope->runId; // the loader chose it: the one asked for, or the newest
        m_scopes->cache()->insert(snapshot->scope);
    }
    if (m_runScope && *m_runScope != 0 && !snapshot->findRun(*m_runScope))
        m_runScope.reset();
    if (!m_runScope && snapshot->hasRuns())
        m_runScope = snapshot->runs.back().run.id;
    m_runsPage->setSnapshot(snapshot);
    m_monitorPage->setSnapshot(snapshot);
    m_scopeModel->setSnapshot(snapshot);
    applyScope();
    if (m_attemptPage->attemptId() != 0)
        m_attemptPage->reload();
    updateStatus();
    Q_EMIT snapshotApplied();
}

void MainWindow::applyFailure(const QString& path, const QString& message, bool missingFile) {
    m_snapshot.reset();
    m_runsPage->setSnapshot(nullptr);
    m_monitorPage->setSnapshot(nullptr);
    m_scopeModel->setSnapshot(nullptr);
    m_scopes->show(nullptr, 0); // clears the result pages
    m_attemptPage->clear();
    if (missingFile) {
        m_placeholder->setMessage(
            tr("No runs yet"),
            tr("There is no database at %1 yet. Run the demo:\n\n%2\n\nthen press F5 "
               "to reload, or open another database (Ctrl+O).")
                .arg(QDir::toNativeSeparators(path), QString::fromLatin1(kDemoCommand)));
    } else {
        m_placeholder->setMessage(tr("Could not open the database"), message);
    }
    updateOuter();
    showError(message);
    updateStatus();
    Q_EMIT loadFailed(message);
}

void MainWindow::showError(const QString& message) {
    m_banner->setText(message);
    m_banner->show();
}

QString MainWindow::errorText() const {
    return m_banner->isVisibleTo(this) ? m_banner->text() : QString();
}

void MainWindow::setRunScope(db::Id runId) {
    if (m_runScope == runId)
        return;
    m_runScope = runId;
    applyScope();
}

void MainWindow::applyScope() {
    const db::Id scope = runScope();
    m_scopeBox->setCurrentIndex(m_scopeModel->rowOfRun(scope));
    m_runsPage->selectRun(scope);
    m_scopes->show(m_snapshot, scope);
}

void MainWindow::showAttempt(db::Id attemptId) {
    m_attemptPage->showAttempt(attemptId);
    showPage(AttemptPageIndex);
}

bool MainWindow::pageNeedsRuns(Page page) {
    return page != ProvidersPageIndex && page != MonitorPageIndex && page != SuitesPageIndex;
}

void MainWindow::updateOuter() {
    const bool results = m_snapshot && m_snapshot->hasRuns();
    const bool catalogPage = !pageNeedsRuns(currentPage()) && !m_databasePath.isEmpty();
    m_outer->setCurrentWidget(results || catalogPage ? static_cast<QWidget*>(m_pages)
                                                     : m_placeholder);
}

void MainWindow::showPage(Page page) {
    m_scopes->setCurrentPage(page);
    m_pages->setCurrentIndex(page);
    updateOuter();
    m_pageActions[static_cast<std::size_t>(page)]->setChecked(true);
}

MainWindow::Page MainWindow::currentPage() const {
    return static_cast<Page>(m_pages->currentIndex());
}

bool MainWindow::isShowingPlaceholder() const {
    return m_outer->currentWidget() == m_placeholder;
}

void MainWindow::updateStatus() {
    if (!m_snapshot) {
        m_status->setText(m_databasePath.isEmpty()
                              ? QString()
                              : tr("Not loaded: %1").arg(QDir::toNativeSeparators(m_databasePath)));
        return;
    }
    m_status->setText(tr("%1 · %2 · %3 attempts · schema v%4")
                          .arg(QDir::toNativeSeparators(m_snapshot->databasePath))
                          .arg(m_snapshot->runs.size() == 1
                                   ? tr("1 run")
                                   : tr("%1 runs").arg(m_snapshot->runs.size()))
                          .arg(m_snapshot->attemptCount())
                          .arg(m_snapshot->schemaVersion));
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/page"), int(currentPage()));
    m_runsPage->saveState(settings);
    m_resultsPage->saveState(settings);
    m_leaderboardPage->saveState(settings);
    m_attemptPage->saveState(settings);
    m_plotsPage->saveState(settings);
    m_comparePage->saveState(settings);
    m_providersPage->saveState(settings);
    m_monitorPage->saveState(settings);
    m_suitesPage->saveState(settings);
}

void MainWindow::restoreSettings() {
    const QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_runsPage->restoreState(settings);
    m_resultsPage->restoreState(settings);
    m_leaderboardPage->restoreState(settings);
    m_attemptPage->restoreState(settings);
    m_plotsPage->restoreState(settings);
    m_comparePage->restoreState(settings);
    m_providersPage->restoreState(settings);
    m_monitorPage->restoreState(settings);
    m_suitesPage->restoreState(settings);
    const int page = settings.value(QStringLiteral("window/page"), int(RunsPageIndex)).toInt();
    // the attempt page is empty after a start
    showPage(page >= 0 && page < PageCount && page != AttemptPageIndex ? static_cast<Page>(page)
                                                                       : RunsPageIndex);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_engine && m_engine->isRunning()) {
        const auto answer = QMessageBox::question(
            this, tr("A run is in progress"),
            tr("This window is running run %1. Closing stops it; it can be resumed later "
               "(kbstudio-cli run --resume %1). Close anyway?")
                .arg(m_engine->progressSnapshot().runId));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        m_engine->stop(); // in-flight work is queued again and the leases released
    }
    saveSettings();
    QMainWindow::closeEvent(event);
}

} // namespace kb::gui
