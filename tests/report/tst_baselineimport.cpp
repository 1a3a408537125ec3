// Import of KernelBench's published baseline timing files, on small synthetic folders.

#include "core/error.h"
#include "core/hashing.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "engine/report/baselineimport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {

const char* const kSourceFoo =
    "import torch\nclass Model(torch.nn.Module):\n"
    "    def forward(self, x):\n        return x\n"
    "def get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n";

void writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QByteArray baselineJson(double foo, double bar, const char* extra = "") {
    return QStringLiteral(
               R"({"level1": {"1_Foo.py": {"mean": %1, "std": 0.01, "min": %1, "max": %1,)"
               R"( "num_trials": 100, "hardware": "Test GPU", "device": "cuda:0"%3},)"
               R"( "2_Bar.py": {"mean": %2, "std": 0.01, "num_trials": 100},)"
               R"( "9_Unknown.py": {"mean": 1.0}},)"
               R"( "level3": {"1_MLP.py": {"mean": 5.0}}})")
        .arg(foo)
        .arg(bar)
        .arg(QString::fromLatin1(extra))
        .toUtf8();
}

struct Catalog {
    db::Database database{":memory:"};
    std::string fooHash = engine::sha256Hex(QString::fromLatin1(kSourceFoo)).toStdString();

    Catalog() {
        db::CatalogRepository catalog(database.connection());
        const db::Id suite = catalog.upsertSuite({0, "kb", "", ""});
        std::vector<db::TaskRow> tasks;
        for (const auto& [key, name, hash] :
             std::vector<std::tuple<std::string, std::string, std::string>>{
                 {"L1_1", "Foo", fooHash},
                 {"L1_2", "Bar", "bar-hash"},
                 {"L1_3", "Other", "other"}}) {
            db::TaskRow t;
            t.key = key;
            t.name = name;
            t.level = 1;
            t.source = "x";
            t.sourceHash = hash;
            tasks.push_back(t);
        }
        catalog.upsertTasks(suite, tasks);
    }

    std::optional<db::BaselineRow> baseline(const std::string& hash, const std::string& device,
                                            const std::string& key,
                                            const std::string& torch = "unknown") {
        return db::EvaluationRepository(database.connection()).baseline(hash, device, torch, key);
    }

    int rows() {
        db::Statement q(database.connection(), "SELECT count(*) FROM baselines");
        q.step();
        return q.int32(0);
    }
};

} // namespace

class TestBaselineImport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void settingsKeys() {
        QCOMPARE(report::publishedSettingsKey(QStringLiteral("baseline_time_torch.json")),
                 QStringLiteral("kernelbench-published;eager"));
        QCOMPARE(report::publishedSettingsKey(
                     QStringLiteral("baseline_time_torch_compile_inductor_default.json")),
                 QStringLiteral("kernelbench-published;compile-inductor-default"));
        QCOMPARE(
            report::publishedSettingsKey(QStringLiteral(
                "baseline_time_torch_compile_inductor_max-autotune-no-cudagraphs.json")),
            QStringLiteral("kernelbench-published;compile-inductor-max-autotune-no-cudagraphs"));
        QVERIFY(report::publishedSettingsKey(QStringLiteral("notes.json")).isEmpty());
    }

    void importsFolderOfGpuFolders() {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("GPU_A/baseline_time_torch.json")),
                  baselineJson(2.5, 4.0));
        writeFile(
            dir.filePath(QStringLiteral("GPU_A/baseline_time_torch_compile_inductor_default.json")),
            baselineJson(2.0, 3.0));
        writeFile(dir.filePath(QStringLiteral("GPU_B/baseline_time_torch.json")),
                  baselineJson(7.0, 8.0, R"(, "torch_version": "2.9.0")"));
        Catalog c;
        const auto r = report::importPublishedBaselines(c.database.connection(), dir.path());
        QCOMPARE(r.files, 3);
        QCOMPARE(r.entries, 12);
        QCOMPARE(r.unmatched, 6); // 9_Unknown and level3 in each file
        QCOMPARE(r.devices, (QStringList{QStringLiteral("GPU_A"), QStringLiteral("GPU_B")}));
        QVERIFY(r.unmatchedNames.contains(QStringLiteral("level3/1_MLP.py")));

        auto eager = c.baseline(c.fooHash, "GPU_A", "kernelbench-published;eager");
        QVERIFY(eager);
        QCOMPARE(*eager->eagerMedianMs, 2.5);
        QVERIFY(!eager->compileMedianMs);
        auto compiled =
            c.baseline("bar-hash", "GPU_A", "kernelbench-published;compile-inductor-default");
        QVERIFY(compiled);
        QCOMPARE(*compiled->compileMedianMs, 3.0);
        QVERIFY(!compiled->eagerMedianMs);
        // GPU_B's Foo entry names its torch version; Bar's does not.
        QVERIFY(c.baseline(c.fooHash, "GPU_B", "kernelbench-published;eager", "2.9.0"));
        QVERIFY(c.baseline("bar-hash", "GPU_B", "kernelbench-published;eager", "unknown"));
        QCOMPARE(r.stored, 6);
        QCOMPARE(c.rows(), 6);

        // Importing again updates in place.
        writeFile(dir.filePath(QStringLiteral("GPU_A/baseline_time_torch.json")),
                  baselineJson(2.75, 4.0));
        report::importPublishedBaselines(c.database.connection(), dir.path());
        QCOMPARE(c.rows(), 6);
        QCOMPARE(*c.baseline(c.fooHash, "GPU_A", "kernelbench-published;eager")->eagerMedianMs,
                 2.75);
    }

    void importsOneGpuFolderWithProblemSources() {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("H100/baseline_time_torch.json")),
                  baselineJson(1.5, 2.5));
        writeFile(dir.filePath(QStringLiteral("problems/level1/1_Foo.py")), kSourceFoo);
        db::Database empty(":memory:");
        report::BaselineImportOptions options;
        options.problemsDir = dir.filePath(QStringLiteral("problems"));
        const auto r = report::importPublishedBaselines(
            empty.connection(), dir.filePath(QStringLiteral("H100")), options);
        QCOMPARE(r.stored, 1);
        const auto b =
            db::EvaluationRepository(empty.connection())
                .baseline(Catalog().fooHash, "H100", "unknown", "kernelbench-published;eager");
        QVERIFY(b);
        QCOMPARE(*b->eagerMedianMs, 1.5);
    }

    void errorsAreExplained_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing folder")
            << QStringLiteral("missing") << QStringLiteral("is not a folder");
        QTest::newRow("no baseline files")
            << QStringLiteral("empty") << QStringLiteral("holds no baseline_time_torch");
        QTest::newRow("broken json")
            << QStringLiteral("broken") << QStringLiteral("is not a KernelBench baseline file");
    }

    void errorsAreExplained() {
        QFETCH(QString, layout);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QString target = dir.filePath(layout);
        if (layout == QLatin1String("empty"))
            QDir().mkpath(target);
        if (layout == QLatin1String("broken"))
            writeFile(target + QStringLiteral("/baseline_time_torch.json"), "{\"level1\": ");
        Catalog c;
        try {
            report::importPublishedBaselines(c.database.connection(), target);
            QFAIL("no error");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(message), qPrintable(e.message()));
        }
        QCOMPARE(c.rows(), 0);
    }
};

QTEST_GUILESS_MAIN(TestBaselineImport)
#include "tst_baselineimport.moc"
