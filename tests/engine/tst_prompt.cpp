#include "core/error.h"
#include "providers/demoprovider.h"
#include "providers/prompt.h"

#include <QTemporaryDir>
#include <QTest>

using namespace kb;

class TestPrompt : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void extract_data() {
        QTest::addColumn<QString>("response");
        QTest::addColumn<QString>("code");
        QTest::newRow("python fence")
            << QStringLiteral("Here:\n```python\nclass ModelNew: pass\n```\nDone.")
            << QStringLiteral("class ModelNew: pass\n");
        QTest::newRow("last python wins")
            << QStringLiteral("```python\nold\n```\ntext\n```python\nnew\n```")
            << QStringLiteral("new\n");
        QTest::newRow("python over cpp")
            << QStringLiteral("```cpp\nint x;\n```\n```py\nkeep\n```") << QStringLiteral("keep\n");
        QTest::newRow("single untagged")
            << QStringLiteral("```\nplain\n```") << QStringLiteral("plain\n");
        QTest::newRow("two untagged, ambiguous")
            << QStringLiteral("```\na\n```\n```\nb\n```") << QString();
        QTest::newRow("no fence") << QStringLiteral("I cannot help with that.") << QString();
        QTest::newRow("unterminated") << QStringLiteral("```python\nclass ModelNew") << QString();
    }
    void extract() {
        QFETCH(QString, response);
        QFETCH(QString, code);
        QCOMPARE(engine::extractCandidateCode(response), code);
    }

    void promptCarriesTheTaskAndTheRules() {
        const QString p = engine::buildOneShotPrompt(QStringLiteral("class Model(nn.Module): ..."),
                                                     QStringLiteral("cuda"));
        QVERIFY(p.contains(QStringLiteral("class Model(nn.Module): ...")));
        QVERIFY(p.contains(QStringLiteral("ModelNew")));
        QVERIFY(p.contains(QStringLiteral("cuda_sources")));
        QVERIFY(engine::buildOneShotPrompt(QStringLiteral("x"), QStringLiteral("cpu"))
                    .contains(QStringLiteral("cpp_sources")));
    }

    void demoProviderServesStoredCandidates() {
        engine::DemoProvider demo(QStringLiteral(KBSTUDIO_SOURCE_RESOURCES "/demo"));
        QVERIFY(demo.models().size() >= 2);
        engine::GenerationRequest req;
        req.model = QStringLiteral("demo-b");
        req.taskKey = QStringLiteral("l1-relu");
        QCOMPARE(demo.expectation(req.model, req.taskKey), QStringLiteral("rejected"));
        const auto served = demo.generate(req);
        QVERIFY2(served.ok, qPrintable(served.error));
        const QString code = engine::extractCandidateCode(served.response);
        QVERIFY(code.contains(QStringLiteral("class ModelNew")));
        // CUDA runs get the CUDA set of stored candidates.
        req.device = QStringLiteral("cuda");
        const auto cuda = demo.generate(req);
        QVERIFY2(cuda.ok, qPrintable(cuda.error));
        QVERIFY(
            engine::extractCandidateCode(cuda.response).contains(QStringLiteral("cuda_sources")));
        QVERIFY(engine::extractCandidateCode(cuda.response) != code);
        req.device = QStringLiteral("cpu");
        QVERIFY(demo.expectation(req.model, QStringLiteral("no-such-task")).isEmpty());
        req.taskKey = QStringLiteral("no-such-task");
        const auto missing = demo.generate(req);
        QVERIFY(!missing.ok);
        QVERIFY(missing.error.contains(QStringLiteral("no stored cpu candidate")));
    }

    void demoProviderNeedsAManifest() {
        QTemporaryDir dir;
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::DemoProvider(dir.path()));
    }
};

QTEST_GUILESS_MAIN(TestPrompt)
#include "tst_prompt.moc"
