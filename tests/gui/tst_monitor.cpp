// The run monitor: what it reads of a run (states, per model, GPU telemetry, finished lines),
// its model under the tester, the page polling the database, and pause/resume/cancel through
// the database protocol (no engine in this process).

#include "data/monitorsnapshot.h"
#include "data/runcontrol.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/monitormodelsmodel.h"
#include "pages/monitorpage.h"

#include <QAbstractItemModelTester>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>

using namespace kb;
using gui::MonitorPage;

namespace {

std::optional<gui::MonitorSnapshot> monitor(const QString& path, db::Id runId) {
    db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
    return gui::readMonitorSnapshot(database.connection(), runId);
}

std::string runStatus(const QString& path, db::Id runId) {
    db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
    return db::RunRepository(database.connection()).run(runId)->status;
}

} // namespace

class TestMonitor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsStatesModelsAndFinishedLines() {
        test::GuiFixture fixture;
        const auto m = monitor(fixture.path(), fixture.run2());
        QVERIFY(m);
        QCOMPARE(m->counts.total(), 2);
        QCOMPARE(m->counts.done, 1);
        QCOMPARE(m->counts.queued, 1);
        QCOMPARE(m->counts.correct, 1);
        QCOMPARE(m->perModel.size(), size_t(1));
        QCOMPARE(m->perModel.at("demo-a").finished(), 1);
        QVERIFY(m->gpus.empty());
        QCOMPARE(m->recent.size(), size_t(1));
        QVERIFY(gui::finishedLineText(m->recent[0])
                    .endsWith(QStringLiteral("demo-a l1_relu: correct 2.50x")));
        QVERIFY(m->attemptsPerMinute > 0);
        QVERIFY(m->etaSeconds); // one attempt left at the measured rate
        QVERIFY(!monitor(fixture.path(), 999));
    }

    void latestGpuSamplePerGpu() {
        test::GuiFixture fixture;
        {
            db::Database database(fixture.path().toStdString());
            auto& conn = database.connection();
            db::Statement e(conn, "SELECT id FROM evaluations WHERE attempt_id = ?");
            e.bind(1, fixture.attempt(fixture.run1(), "demo-a", "l1_relu"));
            QVERIFY(e.step());
            const db::Id eval = e.int64(0);
            db::Statement g(conn, "INSERT INTO gpu_samples(evaluation_id, phase, gpu_index, "
                                  "sm_clock_mhz, temperature_c, "
                                  "power_w, utilization, throttle_reasons) VALUES (?, 'before', 0, "
                                  "1980, 41, 120, 0, ''), "
                                  "(?, 'after', 0, 1755, 63, 510, 97, 'sw_power_cap'), (?, "
                                  "'after', 1, 1980, 35, 90, 0, '')");
            g.bind(1, eval).bind(2, eval).bind(3, eval).exec();
        }
        const auto m = monitor(fixture.path(), fixture.run1());
        QCOMPARE(m->gpus.size(), size_t(2));
        QCOMPARE(m->gpus[0].gpuIndex, 0);
        QCOMPARE(m->gpus[0].phase, std::string("after"));
        QCOMPARE(m->gpus[0].temperatureC.value_or(0), 63.0);
        QCOMPARE(m->gpus[0].throttleReasons, std::string("sw_power_cap"));
    }

    void modelPassesTheTester() {
        test::GuiFixture fixture;
        gui::MonitorModelsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto m1 =
            std::make_shared<const gui::MonitorSnapshot>(*monitor(fixture.path(), fixture.run1()));
        model.setSnapshot(m1);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(test::text(&model, 1, gui::MonitorModelsModel::ModelColumn),
                 QStringLiteral("demo-b"));
        QCOMPARE(test::text(&model, 1, gui::MonitorModelsModel::CorrectColumn),
                 QStringLiteral("2"));
        QCOMPARE(test::text(&model, 1, gui::MonitorModelsModel::ProgressColumn),
                 QStringLiteral("100%"));
        model.setSnapshot(m1); // same models: updated in place
        QCOMPARE(model.rowCount(), 2);
        model.setSnapshot(
            std::make_shared<const gui::MonitorSnapshot>(*monitor(fixture.path(), fixture.run2())));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(test::text(&model, 0, gui::MonitorModelsModel::ProgressColumn),
                 QStringLiteral("50%"));
        model.setSnapshot(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void durations() {
        QCOMPARE(gui::durationText(12.4), QStringLiteral("12 s"));
        QCOMPARE(gui::durationText(250), QStringLiteral("4 min 10 s"));
        QCOMPARE(gui::durationText(7500), QStringLiteral("2 h 05 min"));
    }

    void pagePollsAndControlsTheRunThroughTheDatabase() {
        test::GuiFixture fixture;
        MonitorPage page;
        QSignalSpy polled(&page, &MonitorPage::polled);
        page.setDatabasePath(fixture.path());
        page.setSnapshot(test::loadSnapshot(fixture.path()));
        QCOMPARE(page.runId(), fixture.run2()); // the newest active run
        QTRY_VERIFY_WITH_TIMEOUT(polled.count() >= 1, 5000);
        QCOMPARE(page.stateBar(MonitorPage::Queued)->value(), 1);
        QCOMPARE(page.stateBar(MonitorPage::Done)->value(), 1);
        QCOMPARE(page.stateBar(MonitorPage::Done)->maximum(), 2);
        QVERIFY(page.gpuText().contains(QStringLiteral("No GPU telemetry (CPU run)")));
        QVERIFY2(page.logText().contains(QStringLiteral("demo-a l1_relu: correct 2.50x")),
                 qPrintable(page.logText()));
        QVERIFY(page.statsText().contains(QStringLiteral("1 of 2 attempts finished (1 correct)")));
        QVERIFY(page.statsText().contains(QStringLiteral("No engine is working on this run")));

        QCOMPARE(page.controlRun(gui::RunAction::Pause), QString());
        QCOMPARE(runStatus(fixture.path(), fixture.run2()), std::string("paused"));
        QCOMPARE(page.controlRun(gui::RunAction::Resume), QString());
        QCOMPARE(runStatus(fixture.path(), fixture.run2()), std::string("running"));
        QCOMPARE(page.controlRun(gui::RunAction::Cancel), QString());
        QCOMPARE(runStatus(fixture.path(), fixture.run2()), std::string("cancelled"));
        QTRY_COMPARE_WITH_TIMEOUT(page.stateBar(MonitorPage::Cancelled)->value(), 1, 5000);
        QVERIFY(
            page.controlRun(gui::RunAction::Pause).contains(QStringLiteral("already cancelled")));
        // the log lists each finished attempt once
        QCOMPARE(page.logText().count(QStringLiteral("l1_relu")), 1);
    }

    void emptyStateWithoutRuns() {
        MonitorPage page;
        page.setSnapshot(std::make_shared<const gui::Snapshot>());
        QVERIFY(page.emptyText().contains(QStringLiteral("No runs yet")));
        QVERIFY(!page.controlRun(gui::RunAction::Cancel).isEmpty());
    }
};

QTEST_MAIN(TestMonitor)
#include "tst_monitor.moc"
