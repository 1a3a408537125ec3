// Export filters (run, models, levels, verdicts) and the errors an export reports.

#include "core/error.h"
#include "engine/report/csvexport.h"
#include "engine/report/exporter.h"
#include "reportfixture.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <unistd.h>

using namespace kb;

namespace {

// Column `name` of every data row of a CSV export (the fixture has no quoted commas there).
QStringList column(const QByteArray& csv, const QString& name) {
    QStringList lines = QString::fromUtf8(csv).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const int index = static_cast<int>(lines.takeFirst().split(QLatin1Char(',')).indexOf(name));
    QStringList values;
    for (const auto& line : lines)
        values << line.split(QLatin1Char(','))[index];
    return values;
}

QString errorOf(db::Connection& conn, const report::ExportFilter& filter) {
    try {
        report::loadReportData(conn, filter);
    } catch (const engine::Error& e) {
        return e.message();
    }
    return {};
}

} // namespace

class TestFilters : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everythingByDefault() {
        test::ReportFixture fixture;
        const auto data = report::loadReportData(fixture.database.connection(), {});
        QCOMPARE(data.attempts.size(), size_t(9));
        QCOMPARE(data.runs.size(), size_t(1));
        QCOMPARE(data.environments.size(), size_t(1));
        QCOMPARE(data.tasksPerLevel, (std::map<int, int>{{1, 2}, {2, 2}}));
    }

    void modelsFilterRows_data() {
        QTest::addColumn<QStringList>("models");
        QTest::addColumn<QList<int>>("levels");
        QTest::addColumn<QStringList>("verdicts");
        QTest::addColumn<QStringList>("expectedModels");
        QTest::addColumn<QStringList>("expectedLevels");
        QTest::addColumn<int>("rows");
        const QStringList none;
        QTest::newRow("one model") << QStringList{QStringLiteral("model-a")} << QList<int>{} << none
                                   << QStringList{QStringLiteral("model-a")}
                                   << QStringList{QStringLiteral("1"), QStringLiteral("2")} << 5;
        QTest::newRow("one level")
            << none << QList<int>{2} << none
            << QStringList{QStringLiteral("model-a"), QStringLiteral("model-b")}
            << QStringList{QStringLiteral("2")} << 4;
        QTest::newRow("model and level")
            << QStringList{QStringLiteral("model-b")} << QList<int>{1} << none
            << QStringList{QStringLiteral("model-b")} << QStringList{QStringLiteral("1")} << 2;
        QTest::newRow("verdicts") << none << QList<int>{}
                                  << QStringList{QStringLiteral("build_error"),
                                                 QStringLiteral("rejected")}
                                  << QStringList{QStringLiteral("model-a"),
                                                 QStringLiteral("model-b")}
                                  << QStringList{QStringLiteral("2")} << 2;
    }

    void modelsFilterRows() {
        QFETCH(QStringList, models);
        QFETCH(QList<int>, levels);
        QFETCH(QStringList, verdicts);
        QFETCH(QStringList, expectedModels);
        QFETCH(QStringList, expectedLevels);
        QFETCH(int, rows);
        test::ReportFixture fixture;
        report::ExportFilter filter{fixture.run, models, levels, verdicts, {}};
        const auto data =
            report::loadReportData(fixture.database.connection(), filter,
                                   report::loadOptionsFor(report::ExportFormat::SamplesCsv));
        for (const auto& csv : {report::attemptsCsv(data), report::timingSamplesCsv(data)}) {
            auto m = column(csv, QStringLiteral("model"));
            m.removeDuplicates();
            auto l = column(csv, QStringLiteral("level"));
            l.removeDuplicates();
            for (const auto& model : m)
                QVERIFY2(expectedModels.contains(model), qPrintable(model));
            for (const auto& level : l)
                QVERIFY2(expectedLevels.contains(level), qPrintable(level));
        }
        QCOMPARE(column(report::attemptsCsv(data), QStringLiteral("attempt_id")).size(), rows);
        // The leaderboard keeps the whole run's task counts as denominators.
        for (const auto& cell : data.leaderboard.cells)
            QCOMPARE(cell.tasks, 2);
    }

    void verdictFilterLeavesMetricsAlone() {
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.verdicts = {QStringLiteral("incorrect")};
        const auto filtered = report::loadReportData(fixture.database.connection(), filter);
        const auto all = report::loadReportData(fixture.database.connection(), {});
        QCOMPARE(filtered.attempts.size(), size_t(1));
        QCOMPARE(report::renderExport(report::ExportFormat::Markdown, filtered),
                 report::renderExport(report::ExportFormat::Markdown, all));
    }

    void badFiltersAreExplained_data() {
        QTest::addColumn<qint64>("run");
        QTest::addColumn<QStringList>("models");
        QTest::addColumn<QList<int>>("levels");
        QTest::addColumn<QStringList>("verdicts");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown run") << qint64(99) << QStringList{} << QList<int>{} << QStringList{}
                                     << QStringLiteral("no run with id 99");
        QTest::newRow("unknown model")
            << qint64(0) << QStringList{QStringLiteral("gpt-x")} << QList<int>{} << QStringList{}
            << QStringLiteral("no model 'gpt-x' has attempts in the database "
                              "(models: model-a, model-b)");
        QTest::newRow("bad level") << qint64(0) << QStringList{} << QList<int>{7} << QStringList{}
                                   << QStringLiteral("level 7 does not exist; levels are 1 to 4");
        QTest::newRow("unknown verdict")
            << qint64(0) << QStringList{} << QList<int>{} << QStringList{QStringLiteral("passed")}
            << QStringLiteral("unknown verdict 'passed'");
    }

    void badFiltersAreExplained() {
        QFETCH(qint64, run);
        QFETCH(QStringList, models);
        QFETCH(QList<int>, levels);
        QFETCH(QStringList, verdicts);
        QFETCH(QString, message);
        test::ReportFixture fixture;
        const QString error =
            errorOf(fixture.database.connection(), {run, models, levels, verdicts, {}});
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void compareNeedsTwoSelectedModels_data() {
        QTest::addColumn<QStringList>("models");
        QTest::addColumn<QStringList>("compare");
        QTest::addColumn<QString>("expected");
        const QString a = QStringLiteral("model-a");
        const QString b = QStringLiteral("model-b");
        QTest::newRow("one model")
            << QStringList{} << QStringList{a} << QStringLiteral("two different models");
        QTest::newRow("same model twice")
            << QStringList{} << QStringList{a, a} << QStringLiteral("two different models");
        QTest::newRow("unknown") << QStringList{} << QStringList{a, QStringLiteral("nope")}
                                 << QStringLiteral("no model 'nope'");
        QTest::newRow("not selected") << QStringList{a} << QStringList{a, b}
                                      << QStringLiteral("'model-b' is compared but not selected");
        QTest::newRow("fine") << QStringList{} << QStringList{b, a} << QString();
    }

    void compareNeedsTwoSelectedModels() {
        QFETCH(QStringList, models);
        QFETCH(QStringList, compare);
        QFETCH(QString, expected);
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.models = models;
        filter.compare = compare;
        const QString error = errorOf(fixture.database.connection(), filter);
        if (expected.isEmpty())
            QVERIFY2(error.isEmpty(), qPrintable(error));
        else
            QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void pairedComparisonOnlyWhenTwoModelsAreChosen() {
        test::ReportFixture fixture;
        auto& conn = fixture.database.connection();
        QVERIFY(!report::loadReportData(conn, {}).paired); // every model: no comparison
        report::ExportFilter filter;
        filter.compare = {QStringLiteral("model-b"), QStringLiteral("model-a")};
        const auto data = report::loadReportData(conn, filter);
        QVERIFY(data.paired);
        QCOMPARE(data.paired->modelA, std::string("model-b"));
        QCOMPARE(data.paired->modelB, std::string("model-a"));
        // model-b's L2_2 produced no candidate: not attempted, so not shared
        QCOMPARE(data.paired->sharedTasks(), 3);
        QCOMPARE(data.paired->onlyB, 1);
        // from model-b's side: L1_1 0.8x vs 2.5x (loss), L1_2 1.25x vs failed (win), L2_1 tie
        QCOMPARE(data.paired->wins, 1);
        QCOMPARE(data.paired->losses, 1);
        QCOMPARE(data.paired->ties, 1);
        QVERIFY(std::abs(*data.paired->geomeanRatio - std::cbrt(1.0 / 2.5)) < 1e-9);
    }

    void kernelBenchNeedsOneModel() {
        test::ReportFixture fixture;
        const auto data = report::loadReportData(fixture.database.connection(), {});
        try {
            report::renderExport(report::ExportFormat::KernelBench, data);
            QFAIL("several models were accepted");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(QStringLiteral("--models")), qPrintable(e.message()));
        }
    }

    void unwritablePathsAreExplained() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error =
            report::writeFileAtomically(dir.filePath(QStringLiteral("missing/out.csv")), "x");
        QVERIFY2(error.contains(QStringLiteral("does not exist")), qPrintable(error));
        error = report::writeFileAtomically(dir.path(), "x");
        QVERIFY2(error.contains(QStringLiteral("is a folder")), qPrintable(error));
        if (::geteuid() != 0) { // root writes anywhere
            const QString locked = dir.filePath(QStringLiteral("locked"));
            QVERIFY(QDir().mkdir(locked));
            QFile::setPermissions(locked, QFile::ReadOwner | QFile::ExeOwner);
            error = report::writeFileAtomically(locked + QStringLiteral("/out.csv"), "x");
            QVERIFY2(error.startsWith(QStringLiteral("cannot write")), qPrintable(error));
            QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
        const QString good = dir.filePath(QStringLiteral("out.csv"));
        QVERIFY(report::writeFileAtomically(good, "a,b\n").isEmpty());
        QFile f(good);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("a,b\n"));
    }

    void formatNames() {
        for (const auto& name : report::exportFormatNames())
            QCOMPARE(report::exportFormatName(*report::exportFormatFromName(name)), name);
        QVERIFY(!report::exportFormatFromName(QStringLiteral("xlsx")));
    }
};

QTEST_GUILESS_MAIN(TestFilters)
#include "tst_filters.moc"
