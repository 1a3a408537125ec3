// Filtering the results grid (level, model, verdict, text) and keeping the filters in QSettings.

#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/resultsfilterproxy.h"
#include "models/resultsmodel.h"
#include "pages/resultspage.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace kb;
using gui::ResultsFilterProxy;
using gui::ResultsModel;
using VerdictFilter = ResultsFilterProxy::VerdictFilter;

namespace {

QStringList list(std::initializer_list<const char*> items) {
    QStringList out;
    for (const char* item : items)
        out << QString::fromUtf8(item);
    return out;
}

QStringList visibleTasks(const QAbstractItemModel& proxy) {
    QStringList out;
    for (int row = 0; row < proxy.rowCount(); ++row)
        out << proxy.index(row, ResultsModel::TaskColumn).data().toString();
    out.sort();
    return out;
}

QStringList visibleModels(const QAbstractItemModel& proxy) {
    QStringList out;
    for (int c = ResultsModel::ColumnCount; c < proxy.columnCount(); ++c)
        out << proxy.headerData(c, Qt::Horizontal).toString();
    return out;
}

} // namespace

class TestResultsFilter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        test::isolateSettings(m_settingsDir);
        m_snapshot = test::loadSnapshot(m_fixture.path());
    }

    void filters_data() {
        QTest::addColumn<int>("level");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<QString>("search");
        QTest::addColumn<QStringList>("tasks");
        QTest::addColumn<QStringList>("models");
        const QStringList all = list({"l1_matmul", "l1_relu", "l2_conv_bias", "l3_mlp"});
        const QStringList both = list({"demo-a", "demo-b"});
        QTest::newRow("none") << 0 << ""
                              << "all"
                              << "" << all << both;
        QTest::newRow("level 1") << 1 << ""
                                 << "all"
                                 << "" << list({"l1_matmul", "l1_relu"}) << both;
        QTest::newRow("level 3") << 3 << ""
                                 << "all"
                                 << "" << list({"l3_mlp"}) << both;
        QTest::newRow("model b") << 0 << "demo-b"
                                 << "all"
                                 << "" << all << list({"demo-b"});
        QTest::newRow("faster") << 0 << ""
                                << "faster"
                                << "" << list({"l1_relu", "l2_conv_bias", "l3_mlp"}) << both;
        QTest::newRow("faster, model a") << 0 << "demo-a"
                                         << "faster"
                                         << "" << list({"l1_relu", "l3_mlp"}) << list({"demo-a"});
        QTest::newRow("slower") << 0 << ""
                                << "slower"
                                << "" << list({"l1_matmul"}) << both;
        QTest::newRow("correct, model b") << 0 << "demo-b"
                                          << "correct"
                                          << "" << list({"l2_conv_bias"}) << list({"demo-b"});
        QTest::newRow("failed") << 0 << ""
                                << "failed"
                                << "" << list({"l1_matmul", "l2_conv_bias", "l3_mlp"}) << both;
        QTest::newRow("suspicious") << 0 << ""
                                    << "suspicious"
                                    << "" << list({"l1_relu"}) << both;
        QTest::newRow("search key") << 0 << ""
                                    << "all"
                                    << "conv" << list({"l2_conv_bias"}) << both;
        QTest::newRow("search any case") << 0 << ""
                                         << "all"
                                         << "RELU" << list({"l1_relu"}) << both;
        QTest::newRow("search name") << 0 << ""
                                     << "all"
                                     << "matrix" << list({"l1_matmul"}) << both;
        QTest::newRow("level and failed") << 1 << ""
                                          << "failed"
                                          << "" << list({"l1_matmul"}) << both;
        QTest::newRow("nothing") << 2 << ""
                                 << "suspicious"
                                 << "" << QStringList() << both;
    }

    void filters() {
        QFETCH(int, level);
        QFETCH(QString, model);
        QFETCH(QString, verdict);
        QFETCH(QString, search);
        QFETCH(QStringList, tasks);
        QFETCH(QStringList, models);
        ResultsModel source;
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&source);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        source.setSnapshot(m_snapshot, m_fixture.run1());
        proxy.setLevel(level);
        proxy.setModelName(model);
        proxy.setVerdictFilter(ResultsFilterProxy::verdictFilterFromKey(verdict));
        proxy.setSearchText(search);
        QCOMPARE(visibleTasks(proxy), tasks);
        QCOMPARE(visibleModels(proxy), models);
        // filters survive a snapshot replacement
        source.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(visibleTasks(proxy), tasks);
    }

    void verdictKeysRoundTrip() {
        for (auto f : {VerdictFilter::All, VerdictFilter::Correct, VerdictFilter::Faster,
                       VerdictFilter::Slower, VerdictFilter::Failed, VerdictFilter::Suspicious,
                       VerdictFilter::Pending})
            QCOMPARE(
                ResultsFilterProxy::verdictFilterFromKey(ResultsFilterProxy::verdictFilterKey(f)),
                f);
        QCOMPARE(ResultsFilterProxy::verdictFilterFromKey(QStringLiteral("bogus")),
                 VerdictFilter::All);
    }

    void sortsByAnyColumn() {
        ResultsModel source;
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&source);
        source.setSnapshot(m_snapshot, m_fixture.run1());
        proxy.sort(source.columnOfModel(QStringLiteral("demo-a")), Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, ResultsModel::TaskColumn).data().toString(),
                 QStringLiteral("l1_relu")); // 2.00x
        QCOMPARE(proxy.index(1, ResultsModel::TaskColumn).data().toString(),
                 QStringLiteral("l3_mlp")); // 1.25x
        QCOMPARE(proxy.index(2, ResultsModel::TaskColumn).data().toString(),
                 QStringLiteral("l1_matmul")); // 0.50x
        proxy.sort(ResultsModel::LevelColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, ResultsModel::TaskColumn).data().toString(),
                 QStringLiteral("l3_mlp"));
    }

    void pageKeepsFiltersInSettings() {
        {
            gui::ResultsPage page;
            page.setSnapshot(m_snapshot, m_fixture.run1());
            page.setLevelFilter(1);
            page.setModelFilter(QStringLiteral("demo-b"));
            page.setVerdictFilterKey(QStringLiteral("failed"));
            page.setSearchText(QStringLiteral("mat"));
            QCOMPARE(page.proxy()->rowCount(), 1);
            QSettings settings;
            page.saveState(settings);
        }
        gui::ResultsPage page;
        page.restoreState(QSettings());
        page.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(page.proxy()->level(), 1);
        QCOMPARE(page.proxy()->modelName(), QStringLiteral("demo-b"));
        QCOMPARE(page.proxy()->verdictFilter(), VerdictFilter::Failed);
        QCOMPARE(page.proxy()->searchText(), QStringLiteral("mat"));
        QCOMPARE(page.findChild<QComboBox*>(QStringLiteral("levelFilter"))->currentData().toInt(),
                 1);
        QCOMPARE(page.findChild<QComboBox*>(QStringLiteral("modelFilter"))->currentText(),
                 QStringLiteral("demo-b"));
        QCOMPARE(page.findChild<QLineEdit*>(QStringLiteral("searchFilter"))->text(),
                 QStringLiteral("mat"));
        QCOMPARE(visibleTasks(*page.proxy()), QStringList{QStringLiteral("l1_matmul")});

        // A model filter that the run in view lacks falls back to all models, and comes back.
        page.setSnapshot(m_snapshot, m_fixture.run2());
        QCOMPARE(page.proxy()->modelName(), QString());
        page.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(page.proxy()->modelName(), QStringLiteral("demo-b"));
    }

    void flaggedTasksAndSpeedupRange() {
        ResultsModel model;
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSnapshot(m_snapshot, m_fixture.run1());
        const int conv = model.rowOfTask(QStringLiteral("l2_conv_bias"));
        QVERIFY(
            model.index(conv, ResultsModel::TaskColumn).data(ResultsModel::FlaggedRole).toBool());
        QVERIFY(model.index(conv, ResultsModel::TaskColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("cuda: output_below_tolerance")));
        proxy.setFlaggedOnly(true);
        QCOMPARE(visibleTasks(proxy), list({"l2_conv_bias"}));
        proxy.setFlaggedOnly(false);
        // best speedups vs eager in run 1: relu 2.0 / 40 (suspicious), matmul 0.5, conv 1.1,
        // mlp 1.25
        proxy.setSpeedupRange(1.0, 2.0);
        QCOMPARE(visibleTasks(proxy), list({"l1_relu", "l2_conv_bias", "l3_mlp"}));
        proxy.setSpeedupRange(10, 0);
        QCOMPARE(visibleTasks(proxy), list({"l1_relu"}));
        proxy.setModelName(QStringLiteral("demo-a"));
        QCOMPARE(visibleTasks(proxy), QStringList{});
        proxy.setModelName({});
        proxy.setSpeedupRange(0, 0.75);
        QCOMPARE(visibleTasks(proxy), list({"l1_matmul"}));
    }

    void newFiltersAreKeptInSettings() {
        {
            gui::ResultsPage page;
            page.setSnapshot(m_snapshot, m_fixture.run1());
            page.setFlaggedOnly(true);
            page.setSpeedupRange(0.5, 3);
            QSettings settings;
            page.saveState(settings);
        }
        gui::ResultsPage page;
        page.restoreState(QSettings());
        page.setSnapshot(m_snapshot, m_fixture.run1());
        QVERIFY(page.proxy()->flaggedOnly());
        QCOMPARE(page.proxy()->speedupMin(), 0.5);
        QCOMPARE(page.proxy()->speedupMax(), 3.0);
        page.setFlaggedOnly(false);
        page.setSpeedupRange(0, 0);
        QSettings settings;
        page.saveState(settings);
    }

    void doubleClickOpensTheAttempt() {
        gui::ResultsPage page;
        page.setSnapshot(m_snapshot, m_fixture.run1());
        page.setLevelFilter(0);
        page.setModelFilter({});
        page.setVerdictFilterKey({});
        page.setSearchText({});
        QSignalSpy activated(&page, &gui::ResultsPage::attemptActivated);
        page.resize(1000, 600);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QTableView* view = page.view();
        const QModelIndex source =
            page.model()->index(page.model()->rowOfTask(QStringLiteral("l1_relu")),
                                page.model()->columnOfModel(QStringLiteral("demo-b")));
        const QModelIndex index = page.proxy()->mapFromSource(source);
        const QPoint centre = view->visualRect(index).center();
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, centre);
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, centre);
        QTRY_COMPARE(activated.size(), 1);
        QCOMPARE(activated.at(0).at(0).toLongLong(),
                 m_fixture.attempt(m_fixture.run1(), "demo-b", "l1_relu"));
    }

private:
    QTemporaryDir m_settingsDir;
    test::GuiFixture m_fixture;
    gui::SnapshotPtr m_snapshot;
};

QTEST_MAIN(TestResultsFilter)
#include "tst_resultsfilter.moc"
