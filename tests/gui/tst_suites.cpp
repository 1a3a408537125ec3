// The Suites & tasks page: operators read from a source, the tasks model (levels, validation
// flags, baselines) under the tester, filters, the task view, and importing a KernelBench
// folder or a JSON-lines file of KernelBench's dataset into the open database.

#include "data/catalogloader.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/suitetasksmodel.h"
#include "pages/suitespage.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <algorithm>

using namespace kb;

namespace {

const char* const kRelu = R"(import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        return F.relu(torch.matmul(self.conv(x), x)) + torch.relu(x)  # relu again

def get_inputs():
    return [torch.randn(16, 16)]

def get_init_inputs():
    return []
)";

// The import tests' fixtures (tests/engine/imports): three KernelBench problems as JSON lines.
const QString kImportFixtures = QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/../engine/imports");

QByteArray firstLineOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readLine() : QByteArray();
}

gui::CatalogPtr catalogOf(const QString& path) {
    const auto r = gui::loadCatalogFile(path);
    if (!r.catalog)
        qFatal("cannot load catalog: %s", qPrintable(r.error));
    return r.catalog;
}

} // namespace

class TestSuites : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void opsFromSource() {
        QCOMPARE(gui::opsFromSource(QString::fromLatin1(kRelu)),
                 (QStringList{QStringLiteral("Conv2d"), QStringLiteral("relu"),
                              QStringLiteral("matmul")}));
    }

    void modelShowsFlagsAndBaselines() {
        test::GuiFixture fixture;
        gui::SuiteTasksModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto c = catalogOf(fixture.path());
        model.setCatalog(c, c->suites.front().id);
        QCOMPARE(model.rowCount(), 4);
        int flagged = -1;
        int relu = -1;
        for (int row = 0; row < model.rowCount(); ++row) {
            if (model.index(row, 0).data(gui::SuiteTasksModel::FlaggedRole).toBool())
                flagged = row;
            if (test::text(&model, row, gui::SuiteTasksModel::KeyColumn) ==
                QLatin1String("l1_relu"))
                relu = row;
        }
        QCOMPARE(test::text(&model, flagged, gui::SuiteTasksModel::KeyColumn),
                 QStringLiteral("l2_conv_bias"));
        QCOMPARE(test::text(&model, flagged, gui::SuiteTasksModel::FlagsColumn),
                 QStringLiteral("cuda: output_below_tolerance"));
        QVERIFY(!model.index(flagged, gui::SuiteTasksModel::FlagsColumn)
                     .data(Qt::DecorationRole)
                     .isNull());
        QCOMPARE(test::text(&model, relu, gui::SuiteTasksModel::BaselinesColumn),
                 QStringLiteral("2"));
        QCOMPARE(test::text(&model, relu, gui::SuiteTasksModel::FlagsColumn),
                 QString()); // checked, nothing flagged
        model.setCatalog(c, 9999);
        QCOMPARE(model.rowCount(), 0);

        gui::BaselinesModel baselines;
        QAbstractItemModelTester tester2(&baselines,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto relus = std::find_if(c->tasks.begin(), c->tasks.end(),
                                        [](const auto& t) { return t.task.key == "l1_relu"; });
        baselines.setBaselines(c->baselinesOf(relus->task));
        QCOMPARE(baselines.rowCount(), 2);
        QCOMPARE(test::text(&baselines, 0, gui::BaselinesModel::DeviceColumn),
                 QStringLiteral("Fixture CPU"));
        QCOMPARE(test::text(&baselines, 1, gui::BaselinesModel::EagerColumn),
                 QStringLiteral("0.125 ms"));
        QCOMPARE(test::text(&baselines, 0, gui::BaselinesModel::CompileColumn),
                 QStringLiteral("–"));
    }

    void pageFiltersAndShowsTheTask() {
        test::GuiFixture fixture;
        gui::SuitesPage page;
        const auto c = catalogOf(fixture.path());
        page.setCatalog(c);
        QCOMPARE(page.proxy()->rowCount(), 4);
        page.setFlaggedOnly(true);
        QCOMPARE(page.proxy()->rowCount(), 1);
        page.setFlaggedOnly(false);
        page.setLevelFilter(1);
        QCOMPARE(page.proxy()->rowCount(), 2);
        page.setLevelFilter(0);
        db::Id relu = 0;
        for (const auto& t : c->tasks)
            relu = t.task.key == "l1_relu" ? t.task.id : relu;
        page.selectTask(relu);
        QVERIFY2(page.taskHeaderText().contains(QStringLiteral("l1_relu")),
                 qPrintable(page.taskHeaderText()));
        QCOMPARE(page.sourceText(), QStringLiteral("class Model: pass"));
        QCOMPARE(page.baselinesModel()->rowCount(), 2);
    }

    void importsAKernelBenchFolder() {
        test::GuiFixture fixture;
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("KernelBench/level1")));
        QFile f(dir.filePath(QStringLiteral("KernelBench/level1/19_ReLU.py")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kRelu);
        f.close();
        QFile bad(dir.filePath(QStringLiteral("KernelBench/level1/20_Broken.py")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("print('not a task')\n");
        bad.close();

        gui::SuitesPage page;
        page.setDatabasePath(fixture.path());
        QSignalSpy changed(&page, &gui::SuitesPage::catalogChanged);
        page.folderDialogHook = [&]() { return dir.filePath(QStringLiteral("KernelBench")); };
        page.importWithDialog();
        QCOMPARE(changed.count(), 1);
        QVERIFY2(page.statusText().contains(QStringLiteral("Imported 1 task")),
                 qPrintable(page.statusText()));
        QVERIFY2(page.statusText().contains(QStringLiteral("20_Broken.py")),
                 qPrintable(page.statusText()));
        const auto c = catalogOf(fixture.path());
        QCOMPARE(c->suites.size(), size_t(2));
        page.setCatalog(c);
        const auto imported = std::find_if(c->suites.begin(), c->suites.end(),
                                           [](const auto& s) { return s.name != "sample"; });
        page.setSuite(imported->id);
        QCOMPARE(page.proxy()->rowCount(), 1);
        QVERIFY(page.taskHeaderText().contains(QStringLiteral("Conv2d, relu, matmul")));

        QVERIFY(page.importFolder(dir.filePath(QStringLiteral("missing"))).size() > 0);
        QCOMPARE(changed.count(), 1);
    }

    void importsAJsonLinesSuite() {
        test::GuiFixture fixture;
        gui::SuitesPage page;
        QAbstractItemModelTester tester(page.tasksModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setDatabasePath(fixture.path());
        QSignalSpy changed(&page, &gui::SuitesPage::catalogChanged);
        page.jsonlDialogHook = []() -> QString {
            return kImportFixtures + QStringLiteral("/suite.jsonl");
        };
        page.importJsonlWithDialog();
        QVERIFY2(changed.count() == 1, qPrintable(page.statusText()));
        QVERIFY2(page.statusText().contains(QStringLiteral("Imported 3 task(s) into 'suite'")),
                 qPrintable(page.statusText()));

        const auto c = catalogOf(fixture.path());
        QCOMPARE(c->suites.size(), size_t(2));
        page.setCatalog(c);
        const auto imported = std::find_if(c->suites.begin(), c->suites.end(),
                                           [](const auto& s) { return s.name == "suite"; });
        QVERIFY(imported != c->suites.end());
        page.setSuite(imported->id);
        QCOMPARE(page.tasksModel()->rowCount(), 3);
        QStringList keys;
        for (int row = 0; row < page.tasksModel()->rowCount(); ++row)
            keys << test::text(page.tasksModel(), row, gui::SuiteTasksModel::KeyColumn);
        keys.sort();
        QCOMPARE(keys, (QStringList{QStringLiteral("L1_19"), QStringLiteral("L1_23"),
                                    QStringLiteral("L2_5")}));
        page.setLevelFilter(2);
        QCOMPARE(page.proxy()->rowCount(), 1);
    }

    void malformedJsonLinesStoreNothing_data() {
        QTest::addColumn<QByteArray>("lines");
        QTest::addColumn<QString>("expected");
        const QByteArray good = firstLineOf(kImportFixtures + QStringLiteral("/suite.jsonl"));
        // one good line does not carry a broken one in: the file is refused whole
        QTest::newRow("bad level") << good + R"({"name": "5_X", "level": 9, "problem_id": 5, )"
                                             R"("code": "class Model: pass"})"
                                             "\n"
                                   << QStringLiteral("bad.jsonl:2");
        QTest::newRow("not json") << good + "{not json\n" << QStringLiteral("bad.jsonl:2");
        QTest::newRow("no usable task") << QByteArray("[1, 2\n") << QStringLiteral("bad.jsonl");
    }

    void malformedJsonLinesStoreNothing() {
        QFETCH(QByteArray, lines);
        QFETCH(QString, expected);
        test::GuiFixture fixture;
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("bad.jsonl"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(lines);
        f.close();

        gui::SuitesPage page;
        page.setDatabasePath(fixture.path());
        QSignalSpy changed(&page, &gui::SuitesPage::catalogChanged);
        const QString error = page.importJsonl(file);
        QVERIFY(!error.isEmpty());
        QCOMPARE(page.statusText(), error);
        QVERIFY2(error.contains(expected), qPrintable(error));
        QCOMPARE(changed.count(), 0);
        const auto c = catalogOf(fixture.path());
        QCOMPARE(c->suites.size(), size_t(1)); // only the fixture's "sample"
        QCOMPARE(c->suites.front().name, std::string("sample"));
    }
};

QTEST_MAIN(TestSuites)
#include "tst_suites.moc"
