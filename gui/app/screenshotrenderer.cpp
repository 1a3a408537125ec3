#include "screenshotrenderer.h"

#include "data/cellstyle.h"
#include "mainwindow.h"
#include "models/resultsmodel.h"
#include "pages/attemptdetailpage.h"
#include "pages/codecompareview.h"
#include "pages/monitorpage.h"
#include "pages/placeholderpage.h"
#include "pages/resultspage.h"

#include <QApplication>
#include <QDir>
#include <QPixmap>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

namespace kb::gui {

namespace {

// The attempt worth showing first among those of the given kinds (earlier kinds win); else
// any finished one.
db::Id interestingAttempt(const Snapshot& snapshot, db::Id runId,
                          std::initializer_list<CellKind> kinds) {
    db::Id fallback = 0;
    for (CellKind wanted : kinds) {
        for (const auto* a : snapshot.attemptsOf(runId)) {
            const CellKind kind = cellKindOf(*a);
            if (kind == wanted)
                return a->id;
            if (!fallback && kind != CellKind::Pending)
                fallback = a->id;
        }
    }
    return fallback;
}

} // namespace

ScreenshotRenderer::ScreenshotRenderer(MainWindow* window, const QString& outputDir,
                                       QObject* parent)
    : QObject(parent)
    , m_window(window)
    , m_dir(outputDir) {}

void ScreenshotRenderer::start() {
    if (!QDir().mkpath(m_dir)) {
        fail(tr("Cannot create %1").arg(m_dir));
        return;
    }
    m_window->resize(1280, 800);
    m_window->show();
    auto begin = [this]() {
        if (!m_window->snapshot() || !m_window->snapshot()->hasRuns()) {
            m_steps.push_back([this]() { grab(QStringLiteral("empty")); });
        } else {
            m_steps.push_back([this]() {
                m_window->showPage(MainWindow::RunsPageIndex);
                grab(QStringLiteral("runs"));
            });
            m_steps.push_back([this]() {
                m_window->showPage(MainWindow::ResultsPageIndex);
                // a selected cell fills the side panel with its samples
                QTableView* view = m_window->resultsPage()->view();
                view->setCurrentIndex(view->model()->index(0, view->model()->columnCount() - 1));
                grab(QStringLiteral("results"));
            });
            m_steps.push_back([this]() {
                m_window->showPage(MainWindow::LeaderboardPageIndex);
                grab(QStringLiteral("leaderboard"));
            });
            m_steps.push_back([this]() {
                m_window->showPage(MainWindow::PlotsPageIndex);
                grab(QStringLiteral("plots"));
            });
            m_steps.push_back([this]() {
                m_window->showPage(MainWindow::ComparePageIndex);
                grab(QStringLiteral("compare"));
            });
            // timing: a suspicious attempt shows the review bar too; findings: one that a
            // check flagged or rejected
            const Snapshot& snapshot = *m_window->snapshot();
            const db::Id scope = m_window->runScope();
            const db::Id transcript =
                interestingAttempt(snapshot, scope, {CellKind::Faster, CellKind::Slower});
            const std::pair<db::Id, AttemptDetailPage::Tab> shots[] = {
                {transcript, AttemptDetailPage::TranscriptTab},
                {transcript, AttemptDetailPage::CodeTab},
                {interestingAttempt(snapshot, scope, {CellKind::Suspicious, CellKind::Faster}),
                 AttemptDetailPage::TimingTab},
                {interestingAttempt(snapshot, scope, {CellKind::Suspicious, CellKind::Rejected}),
                 AttemptDetailPage::FindingsTab},
            };
            for (const auto& [attempt, tab] : shots) {
                if (attempt == 0)
                    continue;
                const QString name =
                    tab == AttemptDetailPage::TimingTab       ? QStringLiteral("attempt-timing")
                    : tab == AttemptDetailPage::TranscriptTab ? QStringLiteral("attempt-transcript")
                    : tab == AttemptDetailPage::CodeTab       ? QStringLiteral("attempt-code")
                                                              : QStringLiteral("attempt-findings");
                m_steps.push_back([this, attempt, tab, name]() {
                    connect(
                        m_window->attemptPage(), &AttemptDetailPage::detailShown, this,
                        [this, tab, name]() {
                            m_window->attemptPage()->tabs()->setCurrentIndex(tab);
                            if (tab == AttemptDetailPage::CodeTab)
                                m_window->attemptPage()->codeView()->setCompareIndex(
                                    1); // diff vs reference
                            // the extras (code, errors, GPU state) load alongside the detail
                            QTimer::singleShot(300, this, [this, name]() { grab(name); });
                        },
                        Qt::SingleShotConnection);
                    m_window->showAttempt(attempt);
                });
            }
            m_steps.push_back([this]() {
                m_window->showPage(MainWindow::MonitorPageIndex);
                connect(
                    m_window->monitorPage(), &MonitorPage::polled, this,
                    [this]() {
                        QTimer::singleShot(100, this,
                                           [this]() { grab(QStringLiteral("monitor")); });
                    },
                    Qt::SingleShotConnection);
                m_window->monitorPage()->pollNow();
            });
            for (const auto& [page, name] :
                 {std::pair{MainWindow::ProvidersPageIndex, QStringLiteral("providers")},
                  std::pair{MainWindow::SuitesPageIndex, QStringLiteral("suites")}}) {
                m_steps.push_back([this, page, name]() {
                    m_window->showPage(page);
                    if (m_window->catalog()) {
                        grab(name);
                        return;
                    }
                    connect(
                        m_window, &MainWindow::catalogApplied, this, [this, name]() { grab(name); },
                        Qt::SingleShotConnection);
                });
            }
        }
        next();
    };
    if (m_window->snapshot() && !m_window->isLoading()) {
        QTimer::singleShot(0, this, begin);
        return;
    }
    connect(m_window, &MainWindow::snapshotApplied, this, begin, Qt::SingleShotConnection);
    connect(
        m_window, &MainWindow::loadFailed, this,
        [this]() {
            // an unreadable database still gets its picture: the error state
            m_steps.push_back([this]() { grab(QStringLiteral("error")); });
            next();
        },
        Qt::SingleShotConnection);
}

void ScreenshotRenderer::next() {
    if (m_done)
        return;
    if (m_step >= m_steps.size()) {
        m_done = true;
        Q_EMIT finished(true, tr("Wrote %1 screenshots to %2").arg(m_written.size()).arg(m_dir));
        return;
    }
    // Let layouts and queued updates settle before each step.
    const std::size_t step = m_step++;
    QTimer::singleShot(50, this, [this, step]() { m_steps[step](); });
}

void ScreenshotRenderer::grab(const QString& name) {
    QApplication::processEvents();
    const QString path = QDir(m_dir).filePath(name + QStringLiteral(".png"));
    const QPixmap pixmap = m_window->grab();
    if (!pixmap.save(path, "PNG")) {
        fail(tr("Cannot write %1").arg(path));
        return;
    }
    m_written << path;
    next();
}

void ScreenshotRenderer::fail(const QString& message) {
    if (m_done)
        return;
    m_done = true;
    Q_EMIT finished(false, message);
}

} // namespace kb::gui
