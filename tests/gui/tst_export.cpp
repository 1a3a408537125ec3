// File → Export: the Results page's filter becomes the export filter, the export is written off
// the GUI thread by the same code as `kbstudio-cli export`, errors come back readable; and the
// window's shortcuts (Ctrl+1..N, Ctrl+E) and empty catalog pages; and KernelBench's layout,
// one run folder per model and level, never written over.

#include "app/mainwindow.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/resultsfilterproxy.h"
#include "pages/resultspage.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTest>

using namespace kb;
using gui::MainWindow;
using V = gui::ResultsFilterProxy::VerdictFilter;

namespace {

QStringList csvColumn(const QString& path, const QString& name) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const auto index = lines.takeFirst().split(QLatin1Char(',')).indexOf(name);
    QStringList values;
    for (const auto& line : lines)
        values << line.split(QLatin1Char(','))[index];
    return values;
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settingsDir); }

    void filterMapping_data() {
        QTest::addColumn<int>("verdict");
        QTest::addColumn<QStringList>("verdicts");
        QTest::addColumn<bool>("hasNote");
        QTest::newRow("all") << int(V::All) << QStringList{} << false;
        QTest::newRow("correct") << int(V::Correct) << QStringList{QStringLiteral("correct")}
                                 << false;
        QTest::newRow("faster") << int(V::Faster) << QStringList{QStringLiteral("correct")} << true;
        QTest::newRow("pending") << int(V::Pending) << QStringList{QStringLiteral("pending")}
                                 << false;
        QTest::newRow("suspicious") << int(V::Suspicious) << QStringList{} << true;
    }

    void filterMapping() {
        QFETCH(int, verdict);
        QFETCH(QStringList, verdicts);
        QFETCH(bool, hasNote);
        gui::ResultsFilterProxy proxy;
        proxy.setLevel(2);
        proxy.setModelName(QStringLiteral("demo-b"));
        proxy.setVerdictFilter(static_cast<V>(verdict));
        const auto f = gui::exportFilterFor(proxy, 7);
        QCOMPARE(f.filter.runId, db::Id(7));
        QCOMPARE(f.filter.models, QStringList{QStringLiteral("demo-b")});
        QCOMPARE(f.filter.levels, QList<int>{2});
        QCOMPARE(f.filter.verdicts, verdicts);
        QCOMPARE(!f.note.isEmpty(), hasNote);
        QVERIFY(f.description.startsWith(QStringLiteral("run 7 · model demo-b · level 2")));
    }

    void exportsWhatTheResultsFilterSelects() {
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        window.setRunScope(m_fixture.run1());
        window.resultsPage()->setModelFilter(QStringLiteral("demo-b"));
        window.resultsPage()->setLevelFilter(1);

        QSignalSpy done(&window, &MainWindow::exportFinished);
        const QString csv = m_out.filePath(QStringLiteral("a.csv"));
        window.exportTo(report::ExportFormat::Csv, csv);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 10000);
        QVERIFY2(done.at(0).at(0).toString().isEmpty(), qPrintable(done.at(0).at(0).toString()));
        QVERIFY(done.at(0).at(1).toString().contains(QStringLiteral("(2 attempts)")));
        QCOMPARE(csvColumn(csv, QStringLiteral("model")),
                 (QStringList{QStringLiteral("demo-b"), QStringLiteral("demo-b")}));
        QCOMPARE(csvColumn(csv, QStringLiteral("level")),
                 (QStringList{QStringLiteral("1"), QStringLiteral("1")}));

        const QString pdf = m_out.filePath(QStringLiteral("r.pdf"));
        window.exportTo(report::ExportFormat::Pdf, pdf);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 20000);
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");

        // two models in the KernelBench format: a readable error, no file
        window.resultsPage()->setModelFilter(QString());
        const QString kb = m_out.filePath(QStringLiteral("kb.json"));
        window.exportTo(report::ExportFormat::KernelBench, kb);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 3, 10000);
        QVERIFY(done.at(2).at(0).toString().contains(QStringLiteral("one model")));
        QVERIFY(!QFile::exists(kb));
        QVERIFY(window.errorText().contains(QStringLiteral("one model")));
    }

    void kernelBenchRunFoldersOfEveryModel() {
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        window.setRunScope(m_fixture.run1());
        // the Results page's model filter does not narrow "every model"
        window.resultsPage()->setModelFilter(QStringLiteral("demo-b"));

        QSignalSpy done(&window, &MainWindow::exportFinished);
        const QString dir = m_out.filePath(QStringLiteral("kbruns"));
        window.exportKernelBenchRunsTo(dir);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 10000);
        QVERIFY2(done.at(0).at(0).toString().isEmpty(), qPrintable(done.at(0).at(0).toString()));
        QVERIFY2(done.at(0).at(1).toString().contains(QStringLiteral("(7 files, 8 attempts)")),
                 qPrintable(done.at(0).at(1).toString()));
        QStringList folders = QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(folders,
                 (QStringList{QStringLiteral("demo-a_level1"), QStringLiteral("demo-a_level2"),
                              QStringLiteral("demo-a_level3"), QStringLiteral("demo-b_level1"),
                              QStringLiteral("demo-b_level2"), QStringLiteral("demo-b_level3")}));
        for (const QString& folder : folders) {
            QFile results(QDir(dir).filePath(folder + QStringLiteral("/eval_results.json")));
            QVERIFY2(results.open(QIODevice::ReadOnly), qPrintable(folder));
            QVERIFY(QJsonDocument::fromJson(results.readAll()).isObject());
        }
        QFile index(QDir(dir).filePath(QStringLiteral("kbstudio_runs.json")));
        QVERIFY(index.open(QIODevice::ReadOnly));
        const QByteArray indexBytes = index.readAll();
        index.close();
        QVERIFY(indexBytes.contains("demo-b_level3"));

        // a second export into the same folder is refused and changes nothing
        window.exportKernelBenchRunsTo(dir);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 2, 10000);
        const QString error = done.at(1).at(0).toString();
        QVERIFY2(error.contains(QStringLiteral("exists already")), qPrintable(error));
        QVERIFY(window.errorText().contains(QStringLiteral("exists already")));
        QVERIFY(index.open(QIODevice::ReadOnly));
        QCOMPARE(index.readAll(), indexBytes);
        QCOMPARE(QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot), folders);
    }

    void comparePageExportsThePairedComparison() {
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        window.openDatabase(m_fixture.path());
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        window.setRunScope(m_fixture.run1());
        window.showPage(MainWindow::ComparePageIndex);
        const auto f = window.currentExportFilter();
        QCOMPARE(f.filter.compare,
                 (QStringList{QStringLiteral("demo-a"), QStringLiteral("demo-b")}));
        QCOMPARE(f.filter.runId, m_fixture.run1());
        QSignalSpy done(&window, &MainWindow::exportFinished);
        const QString md = m_out.filePath(QStringLiteral("compare.md"));
        window.exportTo(report::ExportFormat::Markdown, md);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 10000);
        QVERIFY2(done.at(0).at(0).toString().isEmpty(), qPrintable(done.at(0).at(0).toString()));
        QFile file(md);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("## Paired comparison: demo-a (A) vs demo-b (B)"));
        window.showPage(MainWindow::ResultsPageIndex);
        QVERIFY(window.currentExportFilter().filter.compare.isEmpty());
    }

    void shortcutsForEveryPage() {
        MainWindow window;
        for (int page = 0; page < MainWindow::PageCount; ++page) {
            QCOMPARE(window.pageAction(static_cast<MainWindow::Page>(page))->shortcut(),
                     QKeySequence(QKeyCombination(Qt::ControlModifier,
                                                  static_cast<Qt::Key>(Qt::Key_1 + page))));
        }
        QStringList shortcuts;
        for (QAction* menu : window.menuBar()->actions()) {
            if (!menu->menu())
                continue;
            for (QAction* a : menu->menu()->actions())
                shortcuts << a->shortcut().toString();
        }
        QVERIFY(shortcuts.contains(QStringLiteral("Ctrl+E")));
        QVERIFY(shortcuts.contains(QStringLiteral("Ctrl+R")));
        QVERIFY(shortcuts.contains(QStringLiteral("F5")));
    }

    void catalogPagesWorkWithoutRuns() {
        const QString path = m_out.filePath(QStringLiteral("empty.kbdb"));
        test::GuiFixture::writeEmpty(path);
        MainWindow window;
        QSignalSpy applied(&window, &MainWindow::snapshotApplied);
        QSignalSpy catalog(&window, &MainWindow::catalogApplied);
        window.openDatabase(path);
        QTRY_COMPARE_WITH_TIMEOUT(applied.size(), 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(catalog.size(), 1, 10000);
        QVERIFY(window.isShowingPlaceholder()); // Runs page: no runs yet
        window.showPage(MainWindow::SuitesPageIndex);
        QVERIFY(!window.isShowingPlaceholder());
        window.showPage(MainWindow::ResultsPageIndex);
        QVERIFY(window.isShowingPlaceholder());
    }

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_out;
    test::GuiFixture m_fixture;
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
