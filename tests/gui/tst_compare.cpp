// The Compare page, its paired-task model and the head-to-head plot against the fixture
// (see guifixture.h). Run 1, speedups vs eager, a failed or unscored task counting as 1.0x:
//              demo-a   demo-b                        A/B
//   l1_relu    2.00     suspicious, unaccepted: 1.0   2.00  A
//   l1_matmul  0.50     build error: 1.0              0.50  B
//   l2_conv    1.0      1.10                          0.909 B
//   l3_mlp     1.25     rejected: 1.0                 1.25  A
//   geomean ratio (2 * 0.5 * 1/1.1 * 1.25)^(1/4) = 1.0325
// demo-a in run 2 vs run 1: l1_relu 2.5 vs 2.0 (l1_matmul still queued in run 2).

#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/pairedtasksmodel.h"
#include "pages/comparepage.h"
#include "plots/headtoheadplot.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <cmath>

using namespace kb;
using gui::CompareSide;
using gui::PairedTasksModel;

class TestCompare : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_snapshot = test::loadSnapshot(m_fixture.path()); }

    void twoModelsOfOneRun() {
        const auto c = gui::compareSides(*m_snapshot, {m_fixture.run1(), QStringLiteral("demo-a")},
                                         {m_fixture.run1(), QStringLiteral("demo-b")});
        QCOMPARE(c->sharedTasks(), 4);
        QCOMPARE(c->wins, 2);
        QCOMPARE(c->losses, 2);
        QCOMPARE(c->ties, 0);
        QVERIFY(c->geomeanRatio);
        QVERIFY(std::abs(*c->geomeanRatio - std::pow(2.0 * 0.5 / 1.1 * 1.25, 0.25)) < 1e-9);
        QCOMPARE(c->modelA, std::string("demo-a (run 1)"));
        QCOMPARE(c->signTestP, 1.0);
    }

    void oneModelInTwoRuns() {
        const auto c = gui::compareSides(*m_snapshot, {m_fixture.run2(), QStringLiteral("demo-a")},
                                         {m_fixture.run1(), QStringLiteral("demo-a")});
        QCOMPARE(c->sharedTasks(), 1);
        QCOMPARE(c->wins, 1);
        QCOMPARE(c->onlyB, 3);
        QVERIFY(std::abs(*c->geomeanRatio - 1.25) < 1e-9);
    }

    void modelPassesTheTesterAndSortsByDifference() {
        PairedTasksModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setComparison(gui::compareSides(*m_snapshot,
                                              {m_fixture.run1(), QStringLiteral("demo-a")},
                                              {m_fixture.run1(), QStringLiteral("demo-b")}));
        QCOMPARE(model.rowCount(), 4);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(PairedTasksModel::SortRole);
        proxy.sort(PairedTasksModel::RatioColumn, Qt::DescendingOrder);
        // |ln 2| = |ln 0.5| > |ln 1.25| > |ln (1/1.1)|
        QCOMPARE(proxy.index(2, PairedTasksModel::TaskColumn).data().toString(),
                 QStringLiteral("l3_mlp"));
        QCOMPARE(proxy.index(3, PairedTasksModel::TaskColumn).data().toString(),
                 QStringLiteral("l2_conv_bias"));
        QCOMPARE(proxy.index(3, PairedTasksModel::BetterColumn).data().toString(),
                 QStringLiteral("B"));
        QCOMPARE(proxy.index(2, PairedTasksModel::BetterColumn).data().toString(),
                 QStringLiteral("A"));
        model.setComparison(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void pageDefaultsToTheFirstTwoModelsAndSwaps() {
        gui::ComparePage page;
        page.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(page.sideA().model, QStringLiteral("demo-a"));
        QCOMPARE(page.sideB().model, QStringLiteral("demo-b"));
        QVERIFY(page.comparison());
        QCOMPARE(page.tasksModel()->rowCount(), 4);
        QCOMPARE(page.plot()->pointCount(), 4);
        QVERIFY2(page.summaryText().contains(QStringLiteral("<b>4</b> shared tasks")),
                 qPrintable(page.summaryText()));
        QVERIFY(page.summaryText().contains(QStringLiteral("1.032×")));

        page.setSides(page.sideB(), page.sideA());
        QCOMPARE(page.sideA().model, QStringLiteral("demo-b"));
        QCOMPARE(page.comparison()->wins, 2);
        QVERIFY(std::abs(*page.comparison()->geomeanRatio -
                         1.0 / std::pow(2.0 * 0.5 / 1.1 * 1.25, 0.25)) < 1e-9);

        // a reload keeps the chosen sides
        page.setSnapshot(test::loadSnapshot(m_fixture.path()), m_fixture.run1());
        QCOMPARE(page.sideA().model, QStringLiteral("demo-b"));
    }

    void sameSideOrNoRunsSaySo() {
        gui::ComparePage page;
        page.setSnapshot(m_snapshot, m_fixture.run1());
        page.setSides({m_fixture.run1(), QStringLiteral("demo-a")},
                      {m_fixture.run1(), QStringLiteral("demo-a")});
        QVERIFY(!page.comparison());
        QVERIFY(page.summaryText().contains(QStringLiteral("the same")));
        QCOMPARE(page.plot()->pointCount(), 0);
        page.setSnapshot(std::make_shared<const gui::Snapshot>(), 0);
        QVERIFY(page.summaryText().contains(QStringLiteral("No runs yet")));
    }

private:
    test::GuiFixture m_fixture;
    gui::SnapshotPtr m_snapshot;
};

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
