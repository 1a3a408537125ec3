#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {
const char* kGoodTask = "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"
                        "    def forward(self, x):\n        return torch.relu(x)\n\n"
                        "def get_inputs():\n    return [torch.rand(4)]\n\n"
                        "def get_init_inputs():\n    return []\n";

void write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}
} // namespace

class TestSuiteLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void checkTaskSource_data() {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("problem"); // empty = usable
        QTest::newRow("good") << QString::fromLatin1(kGoodTask) << QString();
        QTest::newRow("empty") << QString() << QStringLiteral("empty");
        QTest::newRow("no model")
            << QStringLiteral("def get_inputs():\n  pass\ndef get_init_inputs():\n  pass\n")
            << QStringLiteral("class Model");
        QTest::newRow("no get_inputs")
            << QString::fromLatin1(kGoodTask).replace(QStringLiteral("def get_inputs"),
                                                      QStringLiteral("def inputs"))
            << QStringLiteral("get_inputs");
        QTest::newRow("no init") << QString::fromLatin1(kGoodTask).replace(
                                        QStringLiteral("get_init_inputs"), QStringLiteral("x"))
                                 << QStringLiteral("get_init_inputs");
        QTest::newRow("no forward") << QString::fromLatin1(kGoodTask).replace(
                                           QStringLiteral("def forward"), QStringLiteral("def fwd"))
                                    << QStringLiteral("forward");
        QTest::newRow("binary") << QStringLiteral("class Model:\n") + QChar(0)
                                << QStringLiteral("NUL");
    }
    void checkTaskSource() {
        QFETCH(QString, source);
        QFETCH(QString, problem);
        const QString got = engine::SuiteLoader::checkTaskSource(source);
        if (problem.isEmpty())
            QVERIFY2(got.isEmpty(), qPrintable(got));
        else
            QVERIFY2(got.contains(problem), qPrintable(got));
    }

    void kernelBenchFolderLayout() {
        QTemporaryDir dir;
        QDir().mkpath(dir.path() + QStringLiteral("/level1"));
        QDir().mkpath(dir.path() + QStringLiteral("/level2"));
        write(dir.path() + QStringLiteral("/level1/2_Second.py"), kGoodTask);
        write(dir.path() + QStringLiteral("/level1/10_Tenth.py"), kGoodTask);
        write(dir.path() + QStringLiteral("/level2/1_Fused.py"), kGoodTask);
        write(dir.path() + QStringLiteral("/level2/1_Broken.py"), "class Model: pass\n");
        write(dir.path() + QStringLiteral("/level2/notes.py"), kGoodTask);
        const auto suite = engine::SuiteLoader::loadFolder(dir.path(), QStringLiteral("kb"));
        QCOMPARE(suite.name, QStringLiteral("kb"));
        QCOMPARE(suite.tasks.size(), 3);
        QCOMPARE(suite.tasks[0].key, QStringLiteral("L1_2")); // numeric order, not text order
        QCOMPARE(suite.tasks[1].key, QStringLiteral("L1_10"));
        QCOMPARE(suite.tasks[1].name, QStringLiteral("Tenth"));
        QCOMPARE(suite.tasks[2].level, 2);
        QCOMPARE(suite.problems.size(), 2);
        QVERIFY(suite.problems.join(QLatin1Char('\n')).contains(QStringLiteral("1_Broken.py")));
        QVERIFY(suite.problems.join(QLatin1Char('\n')).contains(QStringLiteral("N_Name.py")));
    }

    void manifestFolder() {
        QTemporaryDir dir;
        write(dir.path() + QStringLiteral("/a.py"), kGoodTask);
        write(
            dir.path() + QStringLiteral("/suite.json"),
            R"({"name":"mine","tasks":[{"id":"a","name":"A","level":2,"file":"a.py","ops":["relu"]},
                  {"id":"b","level":1,"file":"missing.py"},{"id":"c","level":7,"file":"a.py"}]})");
        const auto suite = engine::SuiteLoader::loadFolder(dir.path());
        QCOMPARE(suite.name, QStringLiteral("mine"));
        QCOMPARE(suite.tasks.size(), 1);
        QCOMPARE(suite.tasks[0].ops, QStringList{QStringLiteral("relu")});
        QCOMPARE(suite.problems.size(), 2);
        QVERIFY(suite.problems[0].contains(QStringLiteral("missing.py")));
        QVERIFY(suite.problems[1].contains(QStringLiteral("level 7")));
    }

    void unusableFoldersAreClearErrors_data() {
        QTest::addColumn<QString>("manifest");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad json") << QStringLiteral("{ nope") << QStringLiteral("not valid JSON");
        QTest::newRow("no name") << QStringLiteral(R"({"tasks":[]})")
                                 << QStringLiteral("no \"name\"");
        QTest::newRow("no tasks") << QStringLiteral(R"({"name":"x","tasks":[]})")
                                  << QStringLiteral("no usable task");
        QTest::newRow("no manifest, no levels") << QString() << QStringLiteral("no suite.json");
    }
    void unusableFoldersAreClearErrors() {
        QFETCH(QString, manifest);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        if (!manifest.isEmpty())
            write(dir.path() + QStringLiteral("/suite.json"), manifest.toUtf8());
        try {
            engine::SuiteLoader::loadFolder(dir.path());
            QFAIL("must throw");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(expected), qPrintable(e.message()));
        }
    }

    void missingFolder() {
        QVERIFY_THROWS_EXCEPTION(engine::Error,
                                 engine::SuiteLoader::loadFolder(QStringLiteral("/no/such/suite")));
    }

    void importIsIdempotent() {
        QTemporaryDir dir;
        QDir().mkpath(dir.path() + QStringLiteral("/level1"));
        write(dir.path() + QStringLiteral("/level1/1_A.py"), kGoodTask);
        write(dir.path() + QStringLiteral("/level1/2_B.py"), kGoodTask);
        const auto suite = engine::SuiteLoader::loadFolder(dir.path(), QStringLiteral("s"));
        db::Database d(":memory:");
        const auto first = engine::importSuite(d.connection(), suite);
        const auto second = engine::importSuite(d.connection(), suite);
        QCOMPARE(first.suiteId, second.suiteId);
        QCOMPARE(second.tasks, 2);
        const auto tasks = db::CatalogRepository(d.connection()).tasks(first.suiteId);
        QCOMPARE(tasks.size(), size_t(2));
        QCOMPARE(tasks[0].sourceHash.size(), size_t(64));
        QVERIFY(QString::fromStdString(tasks[0].metadataJson).contains(QStringLiteral("1_A.py")));
    }

    void theShippedSampleSuiteLoads() {
        const auto suite = engine::SuiteLoader::loadFolder(
            QStringLiteral(KBSTUDIO_SOURCE_RESOURCES "/suites/sample"));
        QVERIFY2(suite.problems.isEmpty(), qPrintable(suite.problems.join(QLatin1Char('\n'))));
        QVERIFY(suite.tasks.size() >= 8);
        QSet<int> levels;
        for (const auto& t : suite.tasks)
            levels.insert(t.level);
        QVERIFY(levels.contains(1) && levels.contains(2) && levels.contains(3));
    }
};

QTEST_GUILESS_MAIN(TestSuiteLoader)
#include "tst_suiteloader.moc"
