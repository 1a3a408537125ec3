// MainWindow: starting runs -- the run launcher, candidates imported from elsewhere, and a
// stored run evaluated later -- in this window's engine or in the background.
#include "core/error.h"
#include "data/runlauncher.h"
#include "mainwindow.h"
#include "pages/importcandidatesdialog.h"
#include "pages/monitorpage.h"
#include "pages/runlauncherdialog.h"
#include "run/runengine.h"

#include <QDir>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>

namespace kb::gui {

void MainWindow::newRunDialog() {
    if (m_databasePath.isEmpty() || !m_catalog) {
        showError(tr("Open a database before starting a run (Ctrl+O)."));
        return;
    }
    RunLauncherDialog dialog(m_catalog, this);
    if (dialog.exec() != QDialog::Accepted || dialog.start() == RunLauncherDialog::Start::No)
        return;
    QString error;
    launchRun(dialog.plan(), dialog.start() == RunLauncherDialog::Start::InBackground, &error);
    if (!error.isEmpty())
        showError(error);
}

db::Id MainWindow::launchRun(const RunPlan& plan, bool inBackground, QString* error) {
    if (!m_catalog) {
        *error = tr("Open a database first.");
        return 0;
    }
    const auto spec = toRunSpec(*m_catalog, plan, error);
    if (!spec)
        return 0;
    if (!inBackground && m_engine && m_engine->isRunning()) {
        *error = tr("This window is already running a run; start the new one in the background.");
        return 0;
    }
    const db::Id runId = createRunFromSpec(m_databasePath, *spec, launcherSettings(plan), error);
    if (runId == 0)
        return 0;
    *error = startRun(runId, inBackground);
    showStartedRun(runId);
    return runId;
}

QString MainWindow::startRun(db::Id runId, bool inBackground) {
    if (inBackground)
        return startRunInBackground(m_databasePath, runId);
    try {
        if (!m_engine) {
            m_engine = std::make_unique<engine::RunEngine>(m_databasePath);
            m_engine->setKeyStore(
                std::shared_ptr<engine::KeyStore>(m_keys.get(), [](engine::KeyStore*) {}));
            connect(m_engine.get(), &engine::RunEngine::runFinished, this, &MainWindow::reload);
            m_monitorPage->setEngine(m_engine.get());
        }
        m_engine->start(runId);
    } catch (const engine::Error& e) {
        return e.message();
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

void MainWindow::showStartedRun(db::Id runId) {
    m_runScope = runId;
    reload();
    m_monitorPage->setRunId(runId);
    showPage(MonitorPageIndex);
}

db::Id MainWindow::importCandidates(const CandidateImportRequest& request, ImportedRunStart start,
                                    QString* error) {
    if (m_databasePath.isEmpty()) {
        *error = tr("Open a database first.");
        return 0;
    }
    if (start == ImportedRunStart::InWindow && m_engine && m_engine->isRunning()) {
        *error = tr("This window is already running a run; evaluate the imported one in the "
                    "background, or only store it.");
        return 0;
    }
    const CandidateImportResult result = importCandidateRun(m_databasePath, request);
    if (result.runId == 0) {
        *error = result.error;
        return 0;
    }
    const QString stored =
        tr("Imported %n candidate(s) of %1 as run %2 (%3).", nullptr, result.attempts)
            .arg(result.models.join(QStringLiteral(", ")))
            .arg(result.runId)
            .arg(result.runName);
    if (start == ImportedRunStart::No) {
        m_runScope = result.runId;
        reload();
        showPage(RunsPageIndex);
        m_status->setText(stored + QLatin1Char(' ') +
                          tr("Evaluate it with: kbstudio-cli run --resume %1 --db %2")
                              .arg(result.runId)
                              .arg(QDir::toNativeSeparators(m_databasePath)));
        error->clear();
        return result.runId;
    }
    *error = startRun(result.runId, start == ImportedRunStart::InBackground);
    showStartedRun(result.runId);
    if (error->isEmpty())
        m_status->setText(stored);
    return result.runId;
}

QString MainWindow::evaluateRun(db::Id runId, bool inBackground) {
    if (m_databasePath.isEmpty())
        return tr("Open a database first.");
    if (runId == 0)
        return tr("Choose one run (the scope) to evaluate.");
    if (!inBackground && m_engine && m_engine->isRunning())
        return tr("This window is already running a run; evaluate this one in the background.");
    const QString error = startRun(runId, inBackground);
    if (error.isEmpty())
        showStartedRun(runId);
    return error;
}

void MainWindow::evaluateRunInScopeDialog() {
    const db::Id runId = runScope();
    if (m_databasePath.isEmpty() || runId == 0) {
        showError(tr("Choose one run in the scope box (or on the Runs page) to evaluate."));
        return;
    }
    QMessageBox box(QMessageBox::Question, tr("Evaluate run %1").arg(runId),
                    tr("Evaluate the queued attempts of run %1 in this window, or in the "
                       "background (kbstudio-cli run --resume %1)?")
                        .arg(runId),
                    QMessageBox::Cancel, this);
    auto* here = box.addButton(tr("In this window"), QMessageBox::AcceptRole);
    auto* background = box.addButton(tr("In the background"), QMessageBox::AcceptRole);
    box.exec();
    if (box.clickedButton() != here && box.clickedButton() != background)
        return;
    const QString error = evaluateRun(runId, box.clickedButton() == background);
    if (!error.isEmpty())
        showError(error);
}

void MainWindow::importCandidatesDialog() {
    if (m_databasePath.isEmpty() || !m_catalog) {
        showError(tr("Open a database before importing candidates (Ctrl+O)."));
        return;
    }
    ImportCandidatesDialog dialog(m_catalog, this);
    QString startError;
    dialog.submit = [this, &startError](const CandidateImportRequest& request,
                                        ImportedRunStart start) -> QString {
        QString error;
        if (importCandidates(request, start, &error) != 0) {
            startError = error; // stored; only starting it failed
            return {};
        }
        return error;
    };
    if (dialog.exec() == QDialog::Accepted && !startError.isEmpty())
        showError(startError);
}

} // namespace kb::gui
