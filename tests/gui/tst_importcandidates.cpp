// File → Import candidates: kernels written elsewhere (the CLI import tests' fixtures: a
// KernelBench run folder and a JSON-lines file of several models) become a run stored as
// `kbstudio-cli import-candidates` stores it, shown on the Runs page; a file with a problem
// stores nothing and says why, in the dialog; and an imported run is evaluated in the window by
// the same in-process engine as a launched one, through the real harness.

#include "app/mainwindow.h"
#include "data/suitefileimport.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/runsmodel.h"
#include "pages/importcandidatesdialog.h"
#include "pages/runspage.h"
#include "run/runengine.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

using namespace kb;
using gui::ImportedRunStart;
using gui::MainWindow;

namespace {

const QString kImportFixtures = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/../engine/imports");

std::vector<db::AttemptRow> attemptsOf(const QString& path, db::Id runId) {
    db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
    return db::RunRepository(database.connection()).attempts(runId);
}

std::size_t runCount(const QString& path) {
    db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
    return db::RunRepository(database.connection()).runs().size();
}

gui::CandidateImportRequest request(const QString& path, const QString& model) {
    gui::CandidateImportRequest r;
    r.path = path;
    r.model = model;
    r.suiteName = QStringLiteral("kb");
    r.device = QStringLiteral("cpu"); // no Python probe
    return r;
}

} // namespace

class TestImportCandidates : public QObject {
    Q_OBJECT

    // The fixture database with the import tests' suite (L1_19, L1_23, L2_5) as "kb".
    void importSuite(const QString& path) {
        QString summary;
        const QString error = gui::importSuiteJsonl(
            path, kImportFixtures + QStringLiteral("/suite.jsonl"), QStringLiteral("kb"), &summary);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void open(MainWindow& window, const QString& path) {
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        QSignalSpy catalog(&window, &MainWindow::catalogApplied);
        window.openDatabase(path);
        QTRY_VERIFY_WITH_TIMEOUT(applied.size() >= 1 && catalog.size() >= 1, 10000);
    }

private Q_SLOTS:
    void initTestCase() {
        test::isolateSettings(m_settingsDir);
        qputenv("KBSTUDIO_RESOURCES", QByteArrayLiteral(KBSTUDIO_SOURCE_RESOURCES));
    }

    void runFolderBecomesAStoredRun() {
        test::GuiFixture fixture;
        importSuite(fixture.path());
        MainWindow window;
        open(window, fixture.path());
        QAbstractItemModelTester tester(window.runsPage()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const std::size_t before = runCount(fixture.path());

        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        QString error;
        const db::Id runId = window.importCandidates(
            request(kImportFixtures + QStringLiteral("/runs/model_x"), QStringLiteral("model-x")),
            ImportedRunStart::No, &error);
        QVERIFY2(runId > 0, qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(runCount(fixture.path()), before + 1);

        // as the CLI stores it: one queued attempt per kernel file, the run's mode "imported"
        const auto attempts = attemptsOf(fixture.path(), runId);
        QCOMPARE(attempts.size(), std::size_t(4));
        QStringList keys;
        for (const auto& a : attempts) {
            QCOMPARE(a.status, std::string("queued"));
            QCOMPARE(a.modelName, std::string("model-x"));
            keys << QString::fromStdString(a.taskKey) + QLatin1Char('/') +
                        QString::number(a.sampleIndex);
        }
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("L1_19/0"), QStringLiteral("L1_19/1"),
                                    QStringLiteral("L1_23/0"), QStringLiteral("L2_5/0")}));

        // the Runs page shows it, selected
        QTRY_VERIFY_WITH_TIMEOUT(
            window.snapshot() && window.snapshot()->findRun(runId) && !window.isLoading(), 10000);
        QCOMPARE(window.currentPage(), MainWindow::RunsPageIndex);
        QCOMPARE(window.runScope(), runId);
        auto* runs = window.runsPage()->model();
        const int row = runs->rowOfRun(runId);
        QVERIFY(row >= 0);
        QCOMPARE(test::text(runs, row, gui::RunsModel::NameColumn),
                 QStringLiteral("kb / imported model-x"));
        QCOMPARE(test::text(runs, row, gui::RunsModel::ModeColumn), QStringLiteral("imported"));
        QCOMPARE(test::text(runs, row, gui::RunsModel::ProgressColumn), QStringLiteral("0 / 4"));
    }

    void jsonLinesOfSeveralModels() {
        test::GuiFixture fixture;
        importSuite(fixture.path());
        MainWindow window;
        open(window, fixture.path());
        auto r =
            request(kImportFixtures + QStringLiteral("/candidates.jsonl"), QStringLiteral("gamma"));
        r.runName = QStringLiteral("from elsewhere");
        QString error;
        const db::Id runId = window.importCandidates(r, ImportedRunStart::No, &error);
        QVERIFY2(runId > 0, qPrintable(error));
        QStringList models;
        for (const auto& a : attemptsOf(fixture.path(), runId)) {
            if (!models.contains(QString::fromStdString(a.modelName)))
                models << QString::fromStdString(a.modelName);
        }
        models.sort();
        QCOMPARE(models, (QStringList{QStringLiteral("alpha"), QStringLiteral("beta"),
                                      QStringLiteral("gamma")}));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.snapshot() && window.snapshot()->findRun(runId) && !window.isLoading(), 10000);
        const int row = window.runsPage()->model()->rowOfRun(runId);
        QCOMPARE(test::text(window.runsPage()->model(), row, gui::RunsModel::NameColumn),
                 QStringLiteral("from elsewhere"));
    }

    void problemsStoreNothing_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown task")
            << QStringLiteral("bad.jsonl") << QStringLiteral("m") << QStringLiteral("bad.jsonl:2");
        QTest::newRow("run folder without a model")
            << kImportFixtures + QStringLiteral("/runs/model_x") << QString()
            << QStringLiteral("model");
        QTest::newRow("missing path") << QStringLiteral("missing.jsonl") << QStringLiteral("m")
                                      << QStringLiteral("missing.jsonl");
    }

    void problemsStoreNothing() {
        QFETCH(QString, path);
        QFETCH(QString, model);
        QFETCH(QString, expected);
        test::GuiFixture fixture;
        importSuite(fixture.path());
        if (!path.startsWith(QLatin1Char('/')))
            path = fixture.dir() + QLatin1Char('/') + path;
        QFile bad(fixture.dir() + QStringLiteral("/bad.jsonl"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"task": "L1_19", "code": "class ModelNew: pass\n"})"
                  "\n"
                  R"({"task": "L9_1", "code": "class ModelNew: pass\n"})"
                  "\n");
        bad.close();

        MainWindow window;
        open(window, fixture.path());
        const std::size_t before = runCount(fixture.path());
        gui::ImportCandidatesDialog dialog(window.catalog(), &window);
        QCOMPARE(dialog.suiteBox()->count(), 2); // sample and kb
        dialog.pathEdit()->setText(path);
        dialog.modelEdit()->setText(model);
        dialog.suiteBox()->setCurrentIndex(dialog.suiteBox()->findText(QStringLiteral("kb")));
        dialog.deviceBox()->setCurrentIndex(dialog.deviceBox()->findData(QStringLiteral("cpu")));
        dialog.startBox()->setCurrentIndex(
            dialog.startBox()->findData(int(ImportedRunStart::InWindow)));
        QCOMPARE(dialog.start(), ImportedRunStart::InWindow);
        dialog.submit = [&window](const gui::CandidateImportRequest& r, ImportedRunStart start) {
            QString error;
            return window.importCandidates(r, start, &error) != 0 ? QString() : error;
        };
        dialog.show();
        dialog.accept();
        QVERIFY(dialog.isVisible()); // stays open with the error
        QVERIFY2(dialog.errorText().contains(expected), qPrintable(dialog.errorText()));
        QCOMPARE(runCount(fixture.path()), before);
        QVERIFY(!window.runEngine()); // nothing was started
    }

    void unknownSuiteIsRefused() {
        test::GuiFixture fixture;
        MainWindow window;
        open(window, fixture.path());
        auto r = request(kImportFixtures + QStringLiteral("/candidates.jsonl"), QString());
        r.suiteName = QStringLiteral("nope");
        QString error;
        QCOMPARE(window.importCandidates(r, ImportedRunStart::No, &error), db::Id(0));
        QVERIFY2(error.contains(QStringLiteral("'nope'")), qPrintable(error));
    }

    void storedRunIsEvaluatedLater() {
        test::GuiFixture fixture;
        importSuite(fixture.path());
        QFile candidates(fixture.dir() + QStringLiteral("/later.jsonl"));
        QVERIFY(candidates.open(QIODevice::WriteOnly));
        candidates.write(R"({"task": "L1_23", "code": "print('no kernel here')\n"})"
                         "\n");
        candidates.close();
        MainWindow window;
        open(window, fixture.path());
        QString error;
        const db::Id runId = window.importCandidates(
            request(candidates.fileName(), QStringLiteral("later")), ImportedRunStart::No, &error);
        QVERIFY2(runId > 0, qPrintable(error));
        QVERIFY(!window.runEngine());
        QTRY_VERIFY_WITH_TIMEOUT(
            window.snapshot() && window.snapshot()->findRun(runId) && !window.isLoading(), 10000);
        QCOMPARE(window.evaluateRun(0, false),
                 QStringLiteral("Choose one run (the scope) to evaluate."));
        error = window.evaluateRun(window.runScope(), /*inBackground=*/false);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(window.currentPage(), MainWindow::MonitorPageIndex);
        QVERIFY(window.runEngine());
        QSignalSpy finished(window.runEngine(), &engine::RunEngine::runFinished);
        QVERIFY2(finished.wait(240000) || finished.size() == 1, "the run did not finish");
        QCOMPARE(finished.at(0).at(0).toLongLong(), qint64(runId));
        const auto attempts = attemptsOf(fixture.path(), runId);
        QCOMPARE(attempts.size(), std::size_t(1));
        QCOMPARE(attempts[0].status, std::string("done"));
    }

    void importedRunIsEvaluatedInTheWindow() {
        test::GuiFixture fixture;
        importSuite(fixture.path());
        QFile candidates(fixture.dir() + QStringLiteral("/one.jsonl"));
        QVERIFY(candidates.open(QIODevice::WriteOnly));
        // not a program the harness can use: the attempt ends quickly, without a build
        candidates.write(R"({"task": "L1_19", "code": "print('no kernel here')\n"})"
                         "\n");
        candidates.close();
        MainWindow window;
        open(window, fixture.path());
        QString error;
        const db::Id runId =
            window.importCandidates(request(candidates.fileName(), QStringLiteral("elsewhere")),
                                    ImportedRunStart::InWindow, &error);
        QVERIFY2(runId > 0, qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(window.currentPage(), MainWindow::MonitorPageIndex);
        QVERIFY(window.runEngine());
        QSignalSpy finished(window.runEngine(), &engine::RunEngine::runFinished);
        QVERIFY2(finished.wait(240000) || finished.size() == 1, "the run did not finish");
        QCOMPARE(finished.at(0).at(0).toLongLong(), qint64(runId));
        const auto attempts = attemptsOf(fixture.path(), runId);
        QCOMPARE(attempts.size(), std::size_t(1));
        QCOMPARE(attempts[0].status, std::string("done"));
        QVERIFY2(attempts[0].verdict != "pending" && attempts[0].verdict != "correct",
                 attempts[0].verdict.c_str());
        qInfo("verdict of a candidate without a kernel: %s (%s)", attempts[0].verdict.c_str(),
              attempts[0].message.c_str());
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->findRun(runId) &&
                                     window.snapshot()->findRun(runId)->finished == 1 &&
                                     !window.isLoading(),
                                 20000);
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(TestImportCandidates)
#include "tst_importcandidates.moc"
