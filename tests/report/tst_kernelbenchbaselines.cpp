// The published KernelBench baselines and problems of the shared folder, imported for real.

#include "core/hashing.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "engine/report/baselineimport.h"
#include "engine/suites/suiteimporter.h"
#include "engine/suites/suiteloader.h"

#include <QTest>

using namespace kb;

namespace {
const QString kKernelBench = QStringLiteral(KBSTUDIO_SHARED_DIR "/kernelbench");

std::string hashOf(const engine::SuiteDefinition& suite, const QString& key) {
    for (const auto& t : suite.tasks) {
        if (t.key == key)
            return engine::sha256Hex(t.source).toStdString();
    }
    return {};
}
} // namespace

class TestKernelBenchBaselines : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void importsPublishedBaselinesForImportedProblems() {
        const auto suite = engine::SuiteLoader::loadFolder(kKernelBench);
        QVERIFY(suite.tasks.size() >= 200);
        db::Database database(":memory:");
        engine::importSuite(database.connection(), suite);

        const auto r = report::importPublishedBaselines(
            database.connection(), kKernelBench + QStringLiteral("/baselines"));
        QCOMPARE(r.devices, (QStringList{QStringLiteral("H100_Modal"),
                                         QStringLiteral("H100_PCIe_LambdaLabs")}));
        QCOMPARE(r.files, 4);
        QCOMPARE(r.entries, 4 * 250);
        // Level 3 problems are not in the shared folder.
        QCOMPARE(r.unmatched, 4 * 50);
        QCOMPARE(r.stored, 4 * 200);

        db::EvaluationRepository evals(database.connection());
        const std::string matmul = hashOf(suite, QStringLiteral("L1_1"));
        QVERIFY(!matmul.empty());
        auto b = evals.baseline(matmul, "H100_Modal", "unknown", "kernelbench-published;eager");
        QVERIFY(b);
        QCOMPARE(*b->eagerMedianMs, 2.66);
        b = evals.baseline(matmul, "H100_Modal", "unknown",
                           "kernelbench-published;compile-inductor-default");
        QVERIFY(b);
        QCOMPARE(*b->compileMedianMs, 2.67);
        b = evals.baseline(matmul, "H100_PCIe_LambdaLabs", "unknown",
                           "kernelbench-published;eager");
        QVERIFY(b);
        QCOMPARE(*b->eagerMedianMs, 3.68);
        const std::string conv = hashOf(suite, QStringLiteral("L2_1"));
        b = evals.baseline(conv, "H100_Modal", "unknown",
                           "kernelbench-published;compile-inductor-default");
        QVERIFY(b);
        QCOMPARE(*b->compileMedianMs, 1.96);
        QCOMPARE(evals.baselinesForTask(matmul).size(), size_t(4));
    }

    void importsOneGpuFolderFromProblemSources() {
        db::Database database(":memory:");
        report::BaselineImportOptions options;
        options.problemsDir = kKernelBench;
        const auto r = report::importPublishedBaselines(
            database.connection(), kKernelBench + QStringLiteral("/baselines/H100_Modal"), options);
        QCOMPARE(r.devices, QStringList{QStringLiteral("H100_Modal")});
        QCOMPARE(r.stored, 2 * 200);
    }
};

QTEST_GUILESS_MAIN(TestKernelBenchBaselines)
#include "tst_kernelbenchbaselines.moc"
