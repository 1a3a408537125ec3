// The runs table and the run scope list.

#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/runscopemodel.h"
#include "models/runsmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace kb;
using gui::RunScopeModel;
using gui::RunsModel;

class TestRunsModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_snapshot = test::loadSnapshot(m_fixture.path()); }

    void passesTheModelTesterEmptyPopulatedAndReplaced() {
        RunsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(RunsModel::ColumnCount));
        model.setSnapshot(m_snapshot);
        QCOMPARE(model.rowCount(), 2);
        model.setSnapshot(std::make_shared<const gui::Snapshot>());
        QCOMPARE(model.rowCount(), 0);
        model.setSnapshot(m_snapshot);
        model.setSnapshot(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void showsEveryRun() {
        RunsModel model;
        model.setSnapshot(m_snapshot);
        const int row = model.rowOfRun(m_fixture.run1());
        QCOMPARE(row, 0);
        QCOMPARE(model.index(row, 0).data(RunsModel::RunIdRole).toLongLong(), m_fixture.run1());
        QCOMPARE(test::text(&model, row, RunsModel::IdColumn), QString::number(m_fixture.run1()));
        QCOMPARE(test::text(&model, row, RunsModel::NameColumn), QStringLiteral("baseline sweep"));
        QCOMPARE(test::text(&model, row, RunsModel::SuiteColumn), QStringLiteral("sample"));
        QCOMPARE(test::text(&model, row, RunsModel::ModeColumn), QStringLiteral("one-shot"));
        QCOMPARE(test::text(&model, row, RunsModel::StatusColumn), QStringLiteral("finished"));
        QCOMPARE(test::text(&model, row, RunsModel::ProgressColumn), QStringLiteral("8 / 8"));
        QCOMPARE(test::text(&model, row, RunsModel::CorrectColumn), QStringLiteral("5"));
        QCOMPARE(test::text(&model, row, RunsModel::SuspiciousColumn), QStringLiteral("1"));
        QCOMPARE(test::text(&model, row, RunsModel::RejectedColumn), QStringLiteral("1"));
        QVERIFY(!test::text(&model, row, RunsModel::StartedColumn).isEmpty());
        QVERIFY(!test::text(&model, row, RunsModel::FinishedColumn).isEmpty());
        const QString settings = test::text(&model, row, RunsModel::SettingsColumn);
        QVERIFY2(settings.contains(QStringLiteral("cpu")) &&
                     settings.contains(QStringLiteral("fp32")) &&
                     settings.contains(QStringLiteral("5 checks")),
                 qPrintable(settings));
        QVERIFY2(!settings.contains(QStringLiteral("seed")), "the secret seed must never be shown");
        // the run's details name its prompt template and the program that created it
        QVERIFY2(settings.contains(QStringLiteral("prompt kbstudio")), qPrintable(settings));
        QVERIFY2(settings.contains(QStringLiteral("TF32 off")), qPrintable(settings));
        QVERIFY2(settings.contains(QStringLiteral("kbstudio ")), qPrintable(settings));

        const int row2 = model.rowOfRun(m_fixture.run2());
        QCOMPARE(test::text(&model, row2, RunsModel::StatusColumn), QStringLiteral("running"));
        QCOMPARE(test::text(&model, row2, RunsModel::ProgressColumn), QStringLiteral("1 / 2"));
        QVERIFY(test::text(&model, row2, RunsModel::FinishedColumn).isEmpty());
        QCOMPARE(model.index(row2, RunsModel::ProgressColumn).data(RunsModel::SortRole).toDouble(),
                 0.5);
        QCOMPARE(model.rowOfRun(12345), -1);
    }

    void scopeListsAllRunsThenNewestFirst() {
        RunScopeModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setSnapshot(m_snapshot);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0).data().toString(), QStringLiteral("All runs"));
        QCOMPARE(model.runIdAt(0), db::Id(0));
        QCOMPARE(model.runIdAt(1), m_fixture.run2());
        QCOMPARE(model.runIdAt(2), m_fixture.run1());
        QVERIFY(model.index(2).data().toString().contains(QStringLiteral("baseline sweep")));
        QCOMPARE(model.rowOfRun(m_fixture.run1()), 2);
        QCOMPARE(model.rowOfRun(0), 0);
        QCOMPARE(model.rowOfRun(777), -1);
        model.setSnapshot(std::make_shared<const gui::Snapshot>());
        QCOMPARE(model.rowCount(), 0);
        model.setSnapshot(m_snapshot);
        QCOMPARE(model.rowCount(), 3);
    }

private:
    test::GuiFixture m_fixture;
    gui::SnapshotPtr m_snapshot;
};

QTEST_GUILESS_MAIN(TestRunsModel)
#include "tst_runsmodel.moc"
