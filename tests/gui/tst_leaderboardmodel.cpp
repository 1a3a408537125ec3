// The leaderboard model against hand-checked numbers of the fixture (see guifixture.h).
//
// Run 1, demo-a: L1 2/2 correct, speedups 2.0 and 0.5 (compile 1.5, 0.25); L2 incorrect;
// L3 correct 1.25 (no compile baseline at L3).
//   L1 pass 100%, fast_1 eager 1/2 = 50%, fast_1 compile 50%, geomean eager sqrt(2*0.5) = 1.00,
//   geomean compile sqrt(1.5*0.25) = 0.612; L2 pass 0%, geomeans n/a; L3 pass 100%, fast_1
//   eager 100%, fast_1 compile n/a, geomean 1.25.
//   Overall (weights 100/100/50): pass (100*1 + 100*0 + 50*1)/250 = 60%, fast_1 eager
//   (100*0.5 + 0 + 50*1)/250 = 40%, geomean eager exp((100 ln 1 + 50 ln 1.25)/150) = 1.0772.
// Run 1, demo-b: L1 suspicious relu (excluded) + build error -> 0%; L2 1.10 (compile 0.90) ->
//   pass 100%, fast_1 eager 100%, fast_1 compile 0%; L3 rejected -> 0%. Overall pass 40%.
//   Suspicious 1, rejected 1.

#include "data/reviewwriter.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/leaderboardcolumnfilter.h"
#include "models/leaderboardmodel.h"
#include "pages/leaderboardpage.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <cmath>

using namespace kb;
using gui::LeaderboardModel;
using M = LeaderboardModel::Metric;

class TestLeaderboardModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_snapshot = test::loadSnapshot(m_fixture.path()); }

    void passesTheModelTester() {
        LeaderboardModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(LeaderboardModel::ColumnCount));
        model.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.groupCount(), 4); // overall, L1, L2, L3
        QCOMPARE(model.groupLevel(0), 0);
        QCOMPARE(model.groupLevel(3), 3);
        QCOMPARE(model.columnCount(),
                 LeaderboardModel::ColumnCount + 4 * LeaderboardModel::MetricCount);
        model.setSnapshot(m_snapshot, m_fixture.run2());
        QCOMPARE(model.rowCount(), 1);
        model.setSnapshot(std::make_shared<const gui::Snapshot>(), 0);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(LeaderboardModel::ColumnCount));
        model.setSnapshot(m_snapshot, 0);
        QCOMPARE(model.rowCount(), 2);
    }

    void values_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("level");
        QTest::addColumn<int>("metric");
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("value"); // NaN = n/a
        const double na = std::nan("");
        QTest::newRow("a L1 pass") << "demo-a" << 1 << int(M::PassMetric) << "100.0%" << 1.0;
        QTest::newRow("a L1 fast eager")
            << "demo-a" << 1 << int(M::FastEagerMetric) << "50.0%" << 0.5;
        QTest::newRow("a L1 fast compile")
            << "demo-a" << 1 << int(M::FastCompileMetric) << "50.0%" << 0.5;
        QTest::newRow("a L1 geo eager")
            << "demo-a" << 1 << int(M::GeomeanEagerMetric) << "1.00×" << 1.0;
        QTest::newRow("a L1 geo compile")
            << "demo-a" << 1 << int(M::GeomeanCompileMetric) << "0.612×" << std::sqrt(1.5 * 0.25);
        QTest::newRow("a L2 pass") << "demo-a" << 2 << int(M::PassMetric) << "0.0%" << 0.0;
        QTest::newRow("a L2 geo eager")
            << "demo-a" << 2 << int(M::GeomeanEagerMetric) << "n/a" << na;
        QTest::newRow("a L3 fast eager")
            << "demo-a" << 3 << int(M::FastEagerMetric) << "100.0%" << 1.0;
        QTest::newRow("a L3 fast compile")
            << "demo-a" << 3 << int(M::FastCompileMetric) << "n/a" << na;
        QTest::newRow("a L3 geo eager")
            << "demo-a" << 3 << int(M::GeomeanEagerMetric) << "1.25×" << 1.25;
        QTest::newRow("a overall pass") << "demo-a" << 0 << int(M::PassMetric) << "60.0%" << 0.6;
        QTest::newRow("a overall fast eager")
            << "demo-a" << 0 << int(M::FastEagerMetric) << "40.0%" << 0.4;
        QTest::newRow("a overall geo eager")
            << "demo-a" << 0 << int(M::GeomeanEagerMetric) << "1.08×" << std::pow(1.25, 1.0 / 3.0);
        QTest::newRow("b L1 pass") << "demo-b" << 1 << int(M::PassMetric) << "0.0%" << 0.0;
        QTest::newRow("b L1 geo eager")
            << "demo-b" << 1 << int(M::GeomeanEagerMetric) << "n/a" << na;
        QTest::newRow("b L2 pass") << "demo-b" << 2 << int(M::PassMetric) << "100.0%" << 1.0;
        QTest::newRow("b L2 fast eager")
            << "demo-b" << 2 << int(M::FastEagerMetric) << "100.0%" << 1.0;
        QTest::newRow("b L2 fast compile")
            << "demo-b" << 2 << int(M::FastCompileMetric) << "0.0%" << 0.0;
        QTest::newRow("b L2 geo compile")
            << "demo-b" << 2 << int(M::GeomeanCompileMetric) << "0.900×" << 0.9;
        QTest::newRow("b L3 pass") << "demo-b" << 3 << int(M::PassMetric) << "0.0%" << 0.0;
        QTest::newRow("b overall pass") << "demo-b" << 0 << int(M::PassMetric) << "40.0%" << 0.4;
        // one sample per task: pass@1 = pass rate, and k = 1
        QTest::newRow("a L1 pass@1") << "demo-a" << 1 << int(M::PassAt1Metric) << "100.0%" << 1.0;
        QTest::newRow("a L2 pass@1") << "demo-a" << 2 << int(M::PassAt1Metric) << "0.0%" << 0.0;
        QTest::newRow("a overall pass@1")
            << "demo-a" << 0 << int(M::PassAt1Metric) << "60.0%" << 0.6;
        QTest::newRow("b L2 pass@k") << "demo-b" << 2 << int(M::PassAtKMetric) << "100.0%" << 1.0;
        QTest::newRow("b overall pass@k")
            << "demo-b" << 0 << int(M::PassAtKMetric) << "40.0%" << 0.4;
    }

    void values() {
        QFETCH(QString, model);
        QFETCH(int, level);
        QFETCH(int, metric);
        QFETCH(QString, text);
        QFETCH(double, value);
        LeaderboardModel m;
        m.setSnapshot(m_snapshot, m_fixture.run1());
        const int column = m.columnFor(level, static_cast<M>(metric));
        QVERIFY(column >= 0);
        const QModelIndex index = m.index(m.rowOfModel(model), column);
        // A geomean shows its 95% bootstrap interval after the value: "1.25× [1.25, 1.25]".
        const QString shown = index.data().toString();
        QCOMPARE(shown.section(QStringLiteral(" ["), 0, 0), text);
        const bool geomean =
            metric == int(M::GeomeanEagerMetric) || metric == int(M::GeomeanCompileMetric);
        QCOMPARE(shown.contains(QStringLiteral(" [")), geomean && !std::isnan(value));
        QCOMPARE(index.data(LeaderboardModel::LevelRole).toInt(), level);
        QCOMPARE(index.data(LeaderboardModel::MetricRole).toInt(), metric);
        const QVariant v = index.data(LeaderboardModel::ValueRole);
        if (std::isnan(value)) {
            QVERIFY(!v.isValid());
            QCOMPARE(index.data(LeaderboardModel::SortRole).toDouble(), -1.0);
        } else {
            QVERIFY(v.isValid());
            QVERIFY2(std::abs(v.toDouble() - value) < 1e-9,
                     qPrintable(QString::number(v.toDouble(), 'g', 12)));
        }
    }

    void flagsAndTooltips() {
        LeaderboardModel m;
        m.setSnapshot(m_snapshot, m_fixture.run1());
        const int a = m.rowOfModel(QStringLiteral("demo-a"));
        const int b = m.rowOfModel(QStringLiteral("demo-b"));
        QCOMPARE(test::text(&m, a, LeaderboardModel::ModelColumn), QStringLiteral("demo-a"));
        QCOMPARE(test::text(&m, a, LeaderboardModel::SuspiciousColumn), QStringLiteral("0"));
        QCOMPARE(test::text(&m, b, LeaderboardModel::SuspiciousColumn), QStringLiteral("1"));
        QCOMPARE(test::text(&m, b, LeaderboardModel::RejectedColumn), QStringLiteral("1"));
        const QString pass =
            m.index(a, m.columnFor(0, M::PassMetric)).data(Qt::ToolTipRole).toString();
        QVERIFY2(pass.contains(QStringLiteral("Wilson")), qPrintable(pass));
        QVERIFY2(pass.contains(QStringLiteral("3 of 4 tasks correct")), qPrintable(pass));
        QCOMPARE(m.headerData(m.columnFor(1, M::PassMetric), Qt::Horizontal).toString(),
                 QStringLiteral("Level 1\nPass\nrate"));
        QCOMPARE(m.headerData(m.columnFor(0, M::GeomeanEagerMetric), Qt::Horizontal).toString(),
                 QStringLiteral("Overall\nGeomean\neager"));
        QCOMPARE(m.headerData(m.columnFor(0, M::PassAt1Metric), Qt::Horizontal).toString(),
                 QStringLiteral("Overall\npass@1"));
        // k is the most samples a task has: 1 in this run
        QCOMPARE(m.headerData(m.columnFor(2, M::PassAtKMetric), Qt::Horizontal).toString(),
                 QStringLiteral("Level 2\npass@1"));
        const QString passAtK =
            m.index(a, m.columnFor(0, M::PassAtKMetric)).data(Qt::ToolTipRole).toString();
        QVERIFY2(passAtK.contains(QStringLiteral("pass@1: 60.0%")), qPrintable(passAtK));
        QVERIFY(!m.headerData(m.columnFor(0, M::FastCompileMetric), Qt::Horizontal, Qt::ToolTipRole)
                     .toString()
                     .isEmpty());
    }

    void acceptingASuspiciousAttemptChangesTheBoard() {
        test::GuiFixture fixture;
        const db::Id relu = fixture.attempt(fixture.run1(), "demo-b", "l1_relu");
        QVERIFY(
            gui::writeReview(fixture.path(), relu, gui::Review::Accepted, QStringLiteral("checked"))
                .isEmpty());
        LeaderboardModel m;
        m.setSnapshot(test::loadSnapshot(fixture.path()), fixture.run1());
        const int b = m.rowOfModel(QStringLiteral("demo-b"));
        QCOMPARE(m.index(b, m.columnFor(1, M::PassMetric)).data().toString(),
                 QStringLiteral("50.0%"));
        QCOMPARE(m.index(b, m.columnFor(1, M::GeomeanEagerMetric)).data().toString(),
                 QStringLiteral("40.0× [40.0, 40.0]")); // one task: its bootstrap cannot vary
        QCOMPARE(test::text(&m, b, LeaderboardModel::SuspiciousColumn), QStringLiteral("0"));
    }

    void columnFilterShowsOneLevel() {
        LeaderboardModel source;
        gui::LeaderboardColumnFilter filter;
        filter.setSourceModel(&source);
        QAbstractItemModelTester tester(&filter,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        source.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(filter.columnCount(),
                 LeaderboardModel::ColumnCount + 4 * LeaderboardModel::MetricCount);
        filter.setLevel(2);
        QCOMPARE(filter.columnCount(),
                 int(LeaderboardModel::ColumnCount) + int(LeaderboardModel::MetricCount));
        QCOMPARE(filter.headerData(LeaderboardModel::ColumnCount, Qt::Horizontal).toString(),
                 QStringLiteral("Level 2\nPass\nrate"));
        QCOMPARE(filter.headerData(LeaderboardModel::SuspiciousColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Suspicious"));
        filter.setLevel(0);
        QCOMPARE(filter.headerData(LeaderboardModel::ColumnCount, Qt::Horizontal).toString(),
                 QStringLiteral("Overall\nPass\nrate"));
        source.setSnapshot(m_snapshot, m_fixture.run2()); // run 2 has level 1 only
        QCOMPARE(filter.columnCount(),
                 int(LeaderboardModel::ColumnCount) + int(LeaderboardModel::MetricCount));
        filter.setLevel(gui::LeaderboardColumnFilter::AllLevels);
        QCOMPARE(filter.columnCount(),
                 LeaderboardModel::ColumnCount + 2 * LeaderboardModel::MetricCount);
    }

    void pageSortsAndExportsMarkdown() {
        gui::LeaderboardPage page;
        page.setSnapshot(m_snapshot, m_fixture.run1());
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(page.view()->model());
        QVERIFY(proxy);
        QAbstractItemModelTester tester(proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.view()->sortByColumn(page.model()->columnFor(0, M::PassMetric), Qt::DescendingOrder);
        QCOMPARE(proxy->index(0, 0).data().toString(), QStringLiteral("demo-a")); // 60% > 40%
        page.view()->sortByColumn(page.model()->columnFor(2, M::PassMetric), Qt::DescendingOrder);
        QCOMPARE(proxy->index(0, 0).data().toString(), QStringLiteral("demo-b")); // L2: 100% > 0%
        const QString md = page.markdown();
        QVERIFY(md.contains(QStringLiteral("demo-a")));
        QVERIFY(md.contains(QLatin1Char('|')));
    }

private:
    test::GuiFixture m_fixture;
    gui::SnapshotPtr m_snapshot;
};

QTEST_MAIN(TestLeaderboardModel)
#include "tst_leaderboardmodel.moc"
