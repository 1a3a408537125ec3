// The main window: opening databases (good, empty, missing, broken), run scope, navigation
// shortcuts, and settings that survive closing and reopening.

#include "app/mainwindow.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/leaderboardmodel.h"
#include "models/resultsmodel.h"
#include "models/runsmodel.h"
#include "pages/attemptdetailpage.h"
#include "pages/comparepage.h"
#include "pages/leaderboardpage.h"
#include "pages/placeholderpage.h"
#include "pages/resultspage.h"
#include "pages/runspage.h"

#include <QAction>
#include <QFile>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTest>

using namespace kb;
using gui::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settingsDir); }
    void init() { QSettings().clear(); }

    void opensAFixtureAndShowsItsRuns() {
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.show();
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        QVERIFY(!window.isShowingPlaceholder());
        QVERIFY(window.errorText().isEmpty());
        QCOMPARE(window.runsPage()->model()->rowCount(), 2);
        QCOMPARE(window.runsPage()->view()->model()->rowCount(), 2);
        // newest run first in the table, and in scope
        QCOMPARE(window.runScope(), m_fixture.run2());
        QCOMPARE(window.resultsPage()->model()->runId(), m_fixture.run2());
        QCOMPARE(window.resultsPage()->model()->rowCount(), 2);
        QVERIFY(window.windowTitle().contains(QStringLiteral("fixture.kbdb")));

        window.setRunScope(m_fixture.run1());
        QCOMPARE(window.resultsPage()->model()->rowCount(), 4);
        QCOMPARE(window.leaderboardPage()->model()->rowCount(), 2);
        window.setRunScope(0);
        QCOMPARE(window.resultsPage()->model()->runId(), db::Id(0));
        QCOMPARE(window.resultsPage()->model()->rowCount(), 4);
    }

    void largeDatabasesAreReadOneRunAtATime() {
        MainWindow window;
        window.setWholeReadLimit(0); // the fixture's 10 attempts count as many
        window.show();
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        QSignalSpy scoped(&window, &MainWindow::scopeApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        auto snapshot = window.snapshot();
        QVERIFY(snapshot->scope && !snapshot->scope->everyRun);
        QCOMPARE(snapshot->scope->runId, m_fixture.run2());
        QVERIFY(snapshot->attemptsOf(m_fixture.run1()).empty());
        QCOMPARE(window.runsPage()->model()->rowCount(), 2); // every run, from the summaries
        QCOMPARE(window.runScope(), m_fixture.run2());

        // The page in view follows at once; the others when they are shown.
        window.showPage(MainWindow::ResultsPageIndex);
        QCOMPARE(window.resultsPage()->model()->runId(), m_fixture.run2());
        window.setRunScope(m_fixture.run1());
        QVERIFY(window.isLoading());
        QTRY_COMPARE_WITH_TIMEOUT(window.resultsPage()->model()->runId(), m_fixture.run1(), 10000);
        QVERIFY(!window.isLoading());
        QVERIFY(!scoped.isEmpty());
        QCOMPARE(window.resultsPage()->model()->rowCount(), 4);
        window.showPage(MainWindow::LeaderboardPageIndex);
        QCOMPARE(window.leaderboardPage()->model()->rowCount(), 2);

        // A run shown before comes back from the cache, without a read.
        window.setRunScope(m_fixture.run2());
        QVERIFY(!window.isLoading());
        QCOMPARE(window.snapshot()->scope->runId, m_fixture.run2());
        window.showPage(MainWindow::ResultsPageIndex);
        QCOMPARE(window.resultsPage()->model()->runId(), m_fixture.run2());

        // Compare reads a side outside the scope in the background.
        window.showPage(MainWindow::ComparePageIndex);
        window.comparePage()->setSides({m_fixture.run1(), QStringLiteral("demo-a")},
                                       {m_fixture.run2(), QStringLiteral("demo-a")});
        QTRY_VERIFY_WITH_TIMEOUT(window.comparePage()->comparison(), 10000);
        QVERIFY(!window.comparePage()->isWaitingForScope());

        // Every run at once is a scope like any other.
        window.showPage(MainWindow::ResultsPageIndex);
        window.setRunScope(0);
        QTRY_COMPARE_WITH_TIMEOUT(window.resultsPage()->model()->runId(), db::Id(0), 10000);
        QCOMPARE(window.resultsPage()->model()->rowCount(), 4);
    }

    void selectingARunChangesTheScope() {
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        QTableView* runs = window.runsPage()->view();
        for (int row = 0; row < runs->model()->rowCount(); ++row) {
            const QModelIndex index = runs->model()->index(row, 0);
            if (index.data(gui::RunsModel::RunIdRole).toLongLong() == m_fixture.run1())
                runs->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                                   QItemSelectionModel::Rows);
        }
        QCOMPARE(window.runScope(), m_fixture.run1());
        QCOMPARE(window.resultsPage()->model()->runId(), m_fixture.run1());
    }

    void doubleClickingACellOpensTheAttemptPage() {
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        window.setRunScope(m_fixture.run1());
        QSignalSpy shown(window.attemptPage(), &gui::AttemptDetailPage::detailShown);
        const db::Id id = m_fixture.attempt(m_fixture.run1(), "demo-a", "l1_relu");
        Q_EMIT window.resultsPage()->attemptActivated(id);
        QCOMPARE(window.currentPage(), MainWindow::AttemptPageIndex);
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);
        QCOMPARE(window.attemptPage()->attemptId(), id);
    }

    void reviewReloadsTheSnapshot() {
        test::GuiFixture fixture;
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        window.setRunScope(fixture.run1());
        QSignalSpy shown(window.attemptPage(), &gui::AttemptDetailPage::detailShown);
        window.showAttempt(fixture.attempt(fixture.run1(), "demo-b", "l1_relu"));
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);
        QVERIFY(window.attemptPage()->review(gui::Review::Accepted));
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 2, 10000);
        auto* board = window.leaderboardPage()->model();
        const int b = board->rowOfModel(QStringLiteral("demo-b"));
        QCOMPARE(board->index(b, gui::LeaderboardModel::SuspiciousColumn).data().toInt(), 0);
        QCOMPARE(window.runScope(), fixture.run1()); // the scope survives the reload
    }

    void emptyDatabaseShowsTheEmptyState() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("empty.kbdb"));
        test::GuiFixture::writeEmpty(path);
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(path);
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        QVERIFY(window.isShowingPlaceholder());
        QCOMPARE(window.placeholder()->title(), QStringLiteral("No runs yet"));
        QVERIFY(window.placeholder()->body().contains(
            QStringLiteral("kbstudio-cli run --suite sample --models demo-a,demo-b")));
        QVERIFY(window.errorText().isEmpty());
    }

    void missingFileShowsTheDemoHintAndAnError() {
        QTemporaryDir dir;
        MainWindow window;
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        window.show();
        window.openDatabase(dir.filePath(QStringLiteral("nope.kbdb")));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        QVERIFY(window.isShowingPlaceholder());
        QVERIFY(window.placeholder()->body().contains(QStringLiteral("kbstudio-cli run")));
        QVERIFY(window.errorText().contains(QStringLiteral("does not exist")));
    }

    void brokenFileShowsAReadableError_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("garbage") << "garbage";
        QTest::newRow("newer schema") << "toonew";
    }

    void brokenFileShowsAReadableError() {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.kbdb"));
        if (kind == QLatin1String("garbage")) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(8192, 'z'));
        } else {
            test::GuiFixture::writeTooNew(path);
        }
        MainWindow window;
        window.show();
        // a good database first: the failure must replace it, not leave stale data behind
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        window.openDatabase(path);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        QVERIFY(window.isShowingPlaceholder());
        QCOMPARE(window.placeholder()->title(), QStringLiteral("Could not open the database"));
        QVERIFY(!window.errorText().isEmpty());
        QVERIFY(!window.snapshot());
        QCOMPARE(window.runsPage()->model()->rowCount(), 0);
        if (kind == QLatin1String("toonew"))
            QVERIFY2(window.errorText().contains(QStringLiteral("newer version")),
                     qPrintable(window.errorText()));
    }

    void shortcutsSwitchPages() {
        MainWindow window;
        for (int page = 0; page < MainWindow::PageCount; ++page) {
            QAction* action = window.pageAction(static_cast<MainWindow::Page>(page));
            QCOMPARE(action->shortcut(),
                     QKeySequence(QKeyCombination(Qt::ControlModifier,
                                                  static_cast<Qt::Key>(Qt::Key_1 + page))));
            action->trigger();
            QCOMPARE(int(window.currentPage()), page);
        }
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
        QCOMPARE(window.currentPage(), MainWindow::LeaderboardPageIndex);
        QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(window.currentPage(), MainWindow::RunsPageIndex);
        // F5 reloads
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        QTest::keyClick(&window, Qt::Key_F5);
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 2, 10000);
    }

    void closeAndReopenShowsTheSameDataAndLayout() {
        QByteArray splitter;
        QStringList firstCells;
        {
            MainWindow window;
            window.restoreSettings();
            window.resize(1100, 700);
            window.show();
            QSignalSpy applied(&window, &MainWindow::snapshotApplied);
            window.openDatabase(m_fixture.path());
            QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
            window.setRunScope(m_fixture.run1());
            window.showPage(MainWindow::LeaderboardPageIndex);
            window.resultsPage()->setLevelFilter(1);
            auto* split = window.resultsPage()->findChild<QSplitter*>();
            QVERIFY(split);
            split->setSizes({700, 300});
            splitter = split->saveState();
            const auto* model = window.resultsPage()->model();
            for (int r = 0; r < model->rowCount(); ++r)
                for (int c = 0; c < model->columnCount(); ++c)
                    firstCells << model->index(r, c).data().toString();
            window.close(); // saves the settings
        }
        MainWindow window;
        window.restoreSettings();
        window.show();
        QCOMPARE(window.size(), QSize(1100, 700));
        QCOMPARE(window.currentPage(), MainWindow::LeaderboardPageIndex);
        QCOMPARE(window.resultsPage()->findChild<QSplitter*>()->saveState(), splitter);
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        window.setRunScope(m_fixture.run1());
        QStringList cells;
        const auto* model = window.resultsPage()->model();
        for (int r = 0; r < model->rowCount(); ++r)
            for (int c = 0; c < model->columnCount(); ++c)
                cells << model->index(r, c).data().toString();
        QCOMPARE(cells, firstCells);
        QCOMPARE(window.resultsPage()->view()->model()->rowCount(), 2); // level 1 filter kept
    }

private:
    QTemporaryDir m_settingsDir;
    test::GuiFixture m_fixture;
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
