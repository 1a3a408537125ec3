// A run started from the launcher in this window (the in-process engine): the sample suite's
// ReLU task with the offline demo provider's demo-a on the CPU, through the real harness. When
// the engine is done, the monitor and the runs page show the finished counts and the database
// holds the attempt with the verdict its stored candidate is known for.

#include "app/mainwindow.h"
#include "data/catalog.h"
#include "data/runplan.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "guitesthelpers.h"
#include "models/runsmodel.h"
#include "pages/monitorpage.h"
#include "pages/runspage.h"
#include "run/runengine.h"

#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>

using namespace kb;
using gui::MainWindow;

class TestInWindowRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        test::isolateSettings(m_settingsDir);
        // The real harness and sample suite of this source tree.
        qputenv("KBSTUDIO_RESOURCES", QByteArrayLiteral(KBSTUDIO_SOURCE_RESOURCES));
    }

    void smallRunFinishesInTheWindow() {
        const QString path = m_dir.filePath(QStringLiteral("inwindow.kbdb"));
        {
            engine::RunEngine setup(path);
            setup.ensureDemoCatalog(); // the sample suite and the demo provider's models
        }
        MainWindow window;
        window.show();
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        QSignalSpy catalogApplied(&window, &MainWindow::catalogApplied);
        window.openDatabase(path);
        QTRY_VERIFY_WITH_TIMEOUT(applied.size() >= 1 && catalogApplied.size() >= 1, 10000);
        QVERIFY(window.catalog());
        QVERIFY(!window.snapshot()->hasRuns());

        gui::RunPlan plan;
        plan.name = QStringLiteral("in-window");
        for (const auto& suite : window.catalog()->suites) {
            if (suite.name == "sample")
                plan.suiteId = suite.id;
        }
        QVERIFY(plan.suiteId != 0);
        plan.models = {QStringLiteral("demo-a")};
        plan.taskFilter = QStringLiteral("l1-relu");
        plan.baseline = gui::BaselineMode::Eager; // one baseline keeps the CPU time short
        plan.backend = gui::Backend::Cpu;

        QString error;
        const db::Id runId = window.launchRun(plan, /*inBackground=*/false, &error);
        QVERIFY2(runId > 0, qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(window.currentPage(), MainWindow::MonitorPageIndex);
        QCOMPARE(window.monitorPage()->runId(), runId);
        QVERIFY(window.runEngine());

        // runFinished reloads the window: wait for the snapshot that has the run finished.
        QSignalSpy finished(window.runEngine(), &engine::RunEngine::runFinished);
        QVERIFY2(finished.wait(540000) || finished.size() == 1, "the run did not finish");
        QCOMPARE(finished.at(0).at(0).toLongLong(), qint64(runId));
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("finished"));
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->findRun(runId) &&
                                     window.snapshot()->findRun(runId)->finished == 1 &&
                                     !window.isLoading(),
                                 20000);

        // The database holds the attempt, done, with the verdict of demo-a's stored candidate.
        {
            db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
            const auto attempts = db::RunRepository(database.connection()).attempts(runId);
            QCOMPARE(attempts.size(), std::size_t(1));
            QCOMPARE(attempts[0].status, std::string("done"));
            QCOMPARE(attempts[0].modelName, std::string("demo-a"));
            QCOMPARE(attempts[0].taskKey, std::string("l1-relu"));
            QVERIFY2(attempts[0].verdict == "correct", attempts[0].message.c_str());
            QCOMPARE(db::RunRepository(database.connection()).run(runId)->status,
                     std::string("finished"));
        }

        // The runs page: 1 of 1 finished, 1 correct.
        const gui::RunSummary* summary = window.snapshot()->findRun(runId);
        QCOMPARE(summary->attempts, 1);
        QCOMPARE(summary->queued, 0);
        QCOMPARE(summary->correct, 1);
        auto* runs = window.runsPage()->model();
        const int row = runs->rowOfRun(runId);
        QVERIFY(row >= 0);
        QCOMPARE(test::text(runs, row, gui::RunsModel::ProgressColumn), QStringLiteral("1 / 1"));
        QCOMPARE(test::text(runs, row, gui::RunsModel::CorrectColumn), QStringLiteral("1"));

        // The monitor: polled after the end, every attempt done.
        gui::MonitorPage* monitor = window.monitorPage();
        monitor->pollNow();
        QTRY_VERIFY_WITH_TIMEOUT(monitor->monitorSnapshot() &&
                                     monitor->monitorSnapshot()->run.status == "finished",
                                 10000);
        QCOMPARE(monitor->monitorSnapshot()->counts.done, 1);
        QCOMPARE(monitor->monitorSnapshot()->counts.total(), 1);
        QCOMPARE(monitor->monitorSnapshot()->counts.correct, 1);
        QCOMPARE(monitor->stateBar(gui::MonitorPage::Done)->value(), 1);
        QCOMPARE(monitor->stateBar(gui::MonitorPage::Queued)->value(), 0);
        QVERIFY2(
            monitor->statsText().contains(QStringLiteral("1 of 1 attempts finished (1 correct)")),
            qPrintable(monitor->statsText()));
        QVERIFY(!window.runEngine()->isRunning());
    }

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestInWindowRun)
#include "tst_inwindowrun.moc"
