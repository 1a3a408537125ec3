// The KernelBench export of every model of a run: one runs/<model>_level<L>/eval_results.json
// per model and level (what KernelBench's benchmark_eval_analysis.py reads), against golden
// files, the same bytes as the one-model export, and written without touching what is there.

#include "engine/core/error.h"
#include "engine/report/exporter.h"
#include "engine/report/kernelbenchexport.h"
#include "goldenfile.h"
#include "reportfixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {

report::ReportData load(db::Connection& conn, db::Id run, const QStringList& models = {},
                        const QList<int>& levels = {}) {
    report::ExportFilter filter;
    filter.runId = run;
    filter.models = models;
    filter.levels = levels;
    return report::loadReportData(conn, filter,
                                  report::loadOptionsFor(report::ExportFormat::KernelBench));
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestKernelBenchRuns : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyModelAndLevelAgainstGoldenFiles() {
        test::ReportFixture fixture;
        const auto files =
            report::kernelBenchRunFiles(load(fixture.database.connection(), fixture.run));
        QStringList names;
        for (const auto& f : files)
            names << f.runName;
        QCOMPARE(names,
                 (QStringList{QStringLiteral("model-a_level1"), QStringLiteral("model-a_level2"),
                              QStringLiteral("model-b_level1"), QStringLiteral("model-b_level2")}));
        for (const auto& f : files) {
            const QString mismatch = test::goldenMismatch(
                f.evalResults, QStringLiteral("kernelbench_runs_%1.json").arg(f.runName));
            if (!mismatch.isEmpty())
                QFAIL(qPrintable(mismatch));
        }
        const QString mismatch = test::goldenMismatch(
            report::kernelBenchRunIndex(files), QStringLiteral("kernelbench_runs_index.json"));
        if (!mismatch.isEmpty())
            QFAIL(qPrintable(mismatch));
    }

    // Each run folder holds exactly what the one-model, one-level export writes.
    void sameBytesAsTheOneModelExport() {
        test::ReportFixture fixture;
        auto& c = fixture.database.connection();
        for (const auto& f : report::kernelBenchRunFiles(load(c, fixture.run))) {
            const QByteArray single = report::renderExport(
                report::ExportFormat::KernelBench, load(c, fixture.run, {f.model}, {f.level}));
            QCOMPARE(f.evalResults, single);
        }
        // And the one-model file of the golden suite is one of them.
        const auto files = report::kernelBenchRunFiles(load(c, fixture.run));
        QCOMPARE(files[2].evalResults,
                 readAll(QStringLiteral(KBSTUDIO_TEST_DATA_DIR
                                        "/golden/kernelbench_model-b_level1.json")));
    }

    void theOneFileFormStillRefusesSeveralModels() {
        test::ReportFixture fixture;
        try {
            report::renderExport(report::ExportFormat::KernelBench,
                                 load(fixture.database.connection(), fixture.run));
            QFAIL("no error");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(QStringLiteral("give --out a folder")),
                     qPrintable(e.message()));
        }
    }

    // Model names become folder names KernelBench's run_name can hold; two that meet stay apart.
    void runNamesAreSafeAndUnique() {
        test::ReportFixture fixture;
        auto& c = fixture.database.connection();
        c.exec("UPDATE models SET name = 'org/model:v1' WHERE name = 'model-a'");
        c.exec("UPDATE models SET name = 'org_model_v1' WHERE name = 'model-b'");
        QStringList names;
        for (const auto& f : report::kernelBenchRunFiles(load(c, fixture.run)))
            names << f.runName + QLatin1Char('=') + f.model;
        QCOMPARE(names, (QStringList{QStringLiteral("org_model_v1_level1=org/model:v1"),
                                     QStringLiteral("org_model_v1_level2=org/model:v1"),
                                     QStringLiteral("org_model_v1_2_level1=org_model_v1"),
                                     QStringLiteral("org_model_v1_2_level2=org_model_v1")}));
    }

    void writesTheFoldersAndNeverOverwrites() {
        test::ReportFixture fixture;
        const auto data = load(fixture.database.connection(), fixture.run);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("runs"));
        QStringList written;
        QCOMPARE(report::writeKernelBenchRuns(dir, data, &written), QString());
        QCOMPARE(written.size(), 5);
        for (const auto& f : report::kernelBenchRunFiles(data))
            QCOMPARE(
                readAll(dir + QLatin1Char('/') + f.runName + QStringLiteral("/eval_results.json")),
                f.evalResults);
        QCOMPARE(readAll(dir + QStringLiteral("/kbstudio_runs.json")),
                 report::kernelBenchRunIndex(report::kernelBenchRunFiles(data)));
        // A second export into the same folder is refused and changes nothing.
        const QString first = dir + QStringLiteral("/model-a_level1/eval_results.json");
        QFile::resize(first, 3);
        const QString error = report::writeKernelBenchRuns(dir, data);
        QVERIFY2(error.contains(QStringLiteral("exists already")), qPrintable(error));
        QCOMPARE(readAll(first).size(), 3);
        // A file where the folder should be.
        const QString file = tmp.filePath(QStringLiteral("file"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QVERIFY(report::writeKernelBenchRuns(file, data).contains(QStringLiteral("it is a file")));
    }
};

QTEST_GUILESS_MAIN(TestKernelBenchRuns)
#include "tst_kernelbenchruns.moc"
