// Prompt templates as files: the built-ins, a user's file, the placeholders, the default per
// suite, and what a run stores (name, full text, sha256) so that a re-launch asks the same.
// Also the per-precision tolerances and the program version stored with a run's settings.
#include "core/error.h"
#include "eval/evalsettings.h"
#include "generation/generationsession.h"
#include "generation/generationsettings.h"
#include "providers/prompt.h"

#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {
const QString kTask =
    QStringLiteral("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                   "        return {'lang': x}  # braces of the task stay as they are\n");

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(text);
    return path;
}
} // namespace

class TestPromptTemplate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtinsAreShipped() {
        const QStringList names = engine::builtinPromptTemplates();
        QVERIFY2(names.contains(QStringLiteral("kernelbench")),
                 qPrintable(names.join(QLatin1Char(','))));
        QVERIFY(names.contains(QStringLiteral("kbstudio")));
        for (const QString& name : names) {
            const auto t = engine::loadPromptTemplate(name);
            QCOMPARE(t.name, name);
            QCOMPARE(t.sha256, engine::promptSha256(t.text));
            QCOMPARE(t.sha256.size(), 64);
        }
    }

    void defaultFollowsTheSuiteName_data() {
        QTest::addColumn<QString>("suite");
        QTest::addColumn<QString>("expected");
        QTest::newRow("kernelbench levels") << "kernelbench-l1"
                                            << "kernelbench";
        QTest::newRow("any case") << "KernelBench"
                                  << "kernelbench";
        QTest::newRow("sample") << "sample"
                                << "kbstudio";
        QTest::newRow("name containing it later") << "my-kernelbench"
                                                  << "kbstudio";
        QTest::newRow("none") << ""
                              << "kbstudio";
    }
    void defaultFollowsTheSuiteName() {
        QFETCH(QString, suite);
        QFETCH(QString, expected);
        QCOMPARE(engine::defaultPromptTemplateFor(suite), expected);
    }

    void kernelBenchLayoutHasInstructionsAnExampleAndTheTask() {
        engine::PromptValues v;
        v.taskSource = kTask;
        v.device = QStringLiteral("cuda");
        v.precision = QStringLiteral("fp16");
        v.atol = v.rtol = 1e-2;
        const auto p =
            engine::renderPrompt(engine::loadPromptTemplate(QStringLiteral("kernelbench")).text, v);
        QVERIFY(p.system.contains(QStringLiteral("CUDA kernels")));
        QVERIFY(!p.system.contains(QLatin1Char('{') + QStringLiteral("language}")));
        // one worked example: a Model and its ModelNew with an inline CUDA kernel
        QVERIFY(p.user.contains(QStringLiteral("__global__ void scaled_silu_kernel")));
        QVERIFY(p.user.contains(QStringLiteral("load_inline(")));
        QCOMPARE(p.user.count(QStringLiteral("class ModelNew(nn.Module)")), 1);
        // the task once, unchanged, braces and all
        QCOMPARE(p.user.count(kTask), 1);
        QVERIFY(p.user.indexOf(kTask) > p.user.indexOf(QStringLiteral("scaled_silu_kernel")));
        QVERIFY(p.user.contains(QStringLiteral("atol = 0.01 and rtol = 0.01 at fp16")));
        QVERIFY(p.user.contains(QStringLiteral("(cuda_sources)")));
        for (const QString& name : engine::promptPlaceholders()) {
            const QString token = QLatin1Char('{') + name + QLatin1Char('}');
            QVERIFY2(!p.user.contains(token) && !p.system.contains(token), qPrintable(name));
        }
        // the comment before the first marker is not part of any message
        QVERIFY(!p.system.contains(QStringLiteral("Placeholders")));
        QVERIFY(!p.user.contains(QStringLiteral("Placeholders")));
    }

    void studioTemplateIsTheFormerBuiltInPrompt() {
        const QString cuda =
            engine::buildOneShotPrompt(QStringLiteral("class Model: pass"), QStringLiteral("cuda"));
        const QString expected = QStringLiteral(
            "You write high-performance CUDA kernels that replace PyTorch operators.\n\n"
            "Below is a PyTorch program: a class `Model` with a `forward` method, and the "
            "functions `get_inputs()` "
            "and `get_init_inputs()` that create its inputs.\n\n"
            "```python\nclass Model: pass\n```\n\n"
            "Write a class `ModelNew` with the same constructor arguments and the same outputs as "
            "`Model`, whose "
            "forward pass runs your own kernels, compiled with "
            "`torch.utils.cpp_extension.load_inline` "
            "(cuda_sources). Rules:\n"
            "- Do not call PyTorch compute operators (torch.*, F.*, tensor methods that compute) "
            "in forward; "
            "allocating outputs is fine.\n"
            "- Outputs must match the reference within atol = 0.0001, rtol = 0.0001 (fp32).\n"
            "- No threads, processes, file or network access, or patching of any module.\n\n"
            "Reply with the complete Python file of `ModelNew` in one ```python code block.\n");
        QCOMPARE(cuda, expected);
        QVERIFY(engine::buildOneShotPrompt(QStringLiteral("x"), QStringLiteral("cpu"))
                    .contains(QStringLiteral("C++ CPU kernels")));
        QVERIFY(engine::buildOneShotPrompt(QStringLiteral("x"), QStringLiteral("cpu"))
                    .contains(QStringLiteral("(cpp_sources)")));
    }

    void userFileByPath() {
        QTemporaryDir dir;
        const QString path =
            writeFile(dir, QStringLiteral("mine.prompt"), "@user\nSolve:\n{task_source}");
        const auto t = engine::loadPromptTemplate(path);
        QCOMPARE(t.name, QStringLiteral("mine"));
        // sha256 of the file's bytes, computed independently
        QCOMPARE(t.sha256, QStringLiteral(
                               "c2614613d3e41399ad701377b4c28136c0d0a4bb37ec64a6ec5988e6d7670294"));
        engine::PromptValues v;
        v.taskSource = QStringLiteral("T");
        const auto p = engine::renderPrompt(t.text, v);
        QVERIFY(p.system.isEmpty());
        QCOMPARE(p.user, QStringLiteral("Solve:\nT\n"));
        // a task that holds a placeholder's name is never filled in
        engine::PromptValues braces;
        braces.taskSource = QStringLiteral("x = '{language}'");
        QCOMPARE(engine::renderPrompt(QStringLiteral("{language}: {task_source}"), braces).user,
                 QStringLiteral("CUDA: x = '{language}'\n"));
        // without markers the whole file is the user message
        QCOMPARE(
            engine::renderPrompt(QStringLiteral("{language} on {device}: {task_source}"), v).user,
            QStringLiteral("CUDA on cuda: T\n"));
        QCOMPARE(engine::flattenPrompt(
                     engine::renderPrompt(QStringLiteral("@system\nS {precision}\n@user\nU"), v)),
                 QStringLiteral("S fp32\n\nU\n"));
    }

    void badTemplatesAreRefused() {
        QTemporaryDir dir;
        const QString noTask = writeFile(dir, QStringLiteral("notask.prompt"), "Write a kernel.");
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::loadPromptTemplate(noTask));
        try {
            engine::loadPromptTemplate(QStringLiteral("no-such-template"));
            QFAIL("an unknown template was accepted");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(QStringLiteral("kernelbench")) &&
                         e.message().contains(QStringLiteral("kbstudio")),
                     qPrintable(e.message()));
        }
    }

    void runStoresNameTextAndDigest() {
        engine::GenerationSettings g;
        const auto kb = engine::resolveGenerationSettings(engine::kModeOneShot, g,
                                                          QStringLiteral("kernelbench-l2"));
        QCOMPARE(kb.promptTemplate, QStringLiteral("kernelbench"));
        QCOMPARE(kb.promptTemplateText,
                 engine::loadPromptTemplate(QStringLiteral("kernelbench")).text);
        QCOMPARE(kb.promptTemplateSha256, engine::promptSha256(kb.promptTemplateText));
        const auto sample =
            engine::resolveGenerationSettings(engine::kModeMultiTurn, g, QStringLiteral("sample"));
        QCOMPARE(sample.promptTemplate, QStringLiteral("kbstudio"));
        g.promptTemplate = QStringLiteral("kernelbench");
        QCOMPARE(
            engine::resolveGenerationSettings(engine::kModeOneShot, g, QStringLiteral("sample"))
                .promptTemplate,
            QStringLiteral("kernelbench"));

        // A stored text is used as it is, even when the file has changed since (a re-launch).
        engine::GenerationSettings stored;
        stored.promptTemplate = QStringLiteral("kernelbench");
        stored.promptTemplateText = QStringLiteral("@user\nold text {task_source}");
        const auto again = engine::resolveGenerationSettings(engine::kModeOneShot, stored,
                                                             QStringLiteral("sample"));
        QCOMPARE(again.promptTemplateText, stored.promptTemplateText);
        QCOMPARE(again.promptTemplateSha256, engine::promptSha256(stored.promptTemplateText));

        const QJsonObject json = kb.toJson();
        QCOMPARE(json.value(QStringLiteral("prompt_template")).toString(),
                 QStringLiteral("kernelbench"));
        QCOMPARE(json.value(QStringLiteral("prompt_template_sha256")).toString(),
                 kb.promptTemplateSha256);
        const auto back = engine::GenerationSettings::fromJson(json);
        QCOMPARE(back.promptTemplateText, kb.promptTemplateText);
        QCOMPARE(back.promptTemplateSha256, kb.promptTemplateSha256);

        // Agents follow their skill and system prompt: no template is stored for them.
        QVERIFY(engine::resolveGenerationSettings(engine::kModeAgent, engine::GenerationSettings{},
                                                  QStringLiteral("sample"))
                    .promptTemplateText.isEmpty());
    }

    void attemptPromptUsesTheStoredTemplateAndTheRunSettings() {
        engine::GenerationContext ctx;
        ctx.taskSource = QStringLiteral("TASK");
        ctx.eval.device = QStringLiteral("cpu");
        ctx.eval.setPrecision(QStringLiteral("bf16"));
        ctx.settings.promptTemplateText = QStringLiteral(
            "@system\nsys {language}\n@user\n{task_source}{precision} {atol} {rtol}");
        const auto p = engine::oneShotPrompt(ctx);
        QCOMPARE(p.system, QStringLiteral("sys C++ CPU\n"));
        QCOMPARE(p.user, QStringLiteral("TASK\nbf16 0.01 0.01\n"));
        ctx.settings.promptTemplateText
            .clear(); // a run stored before templates: the built-in kbstudio
        QVERIFY(
            engine::flattenPrompt(engine::oneShotPrompt(ctx)).contains(QStringLiteral("(bf16)")));
    }

    void precisionSetsTheTolerance_data() {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("fp32") << "fp32" << 1e-4;
        QTest::newRow("fp16") << "fp16" << 1e-2;
        QTest::newRow("bf16") << "bf16" << 1e-2;
    }
    void precisionSetsTheTolerance() {
        QFETCH(QString, precision);
        QFETCH(double, tolerance);
        engine::EvalSettings s;
        s.setPrecision(precision);
        QCOMPARE(s.atol, tolerance);
        QCOMPARE(s.rtol, tolerance);
        QVERIFY(!s.toleranceExplicit);
        // stored and read back (the run engine reads the stored settings)
        const auto back = engine::EvalSettings::fromJson(s.toJson());
        QCOMPARE(back.atol, tolerance);
        QCOMPARE(back.precision, precision);
        // an explicit tolerance wins over the precision's, before and after
        s.setTolerance(5e-3, 2e-3);
        s.setPrecision(QStringLiteral("fp32"));
        QCOMPARE(s.atol, 5e-3);
        const auto kept = engine::EvalSettings::fromJson(s.toJson());
        QCOMPARE(kept.atol, 5e-3);
        QCOMPARE(kept.rtol, 2e-3);
        QVERIFY(kept.toleranceExplicit);
    }

    void olderRunsGetTheirPrecisionsTolerance() {
        // Stored before the tolerance followed the precision: fp16 with fp32's tolerance.
        const auto fp16 = engine::EvalSettings::fromJson(
            QJsonObject{{QStringLiteral("precision"), QStringLiteral("fp16")},
                        {QStringLiteral("atol"), 1e-4},
                        {QStringLiteral("rtol"), 1e-4}});
        QCOMPARE(fp16.atol, 1e-2);
        QCOMPARE(fp16.rtol, 1e-2);
        // A tolerance that is neither fp32's nor the precision's was chosen on purpose: kept.
        const auto chosen = engine::EvalSettings::fromJson(
            QJsonObject{{QStringLiteral("precision"), QStringLiteral("fp16")},
                        {QStringLiteral("atol"), 3e-3},
                        {QStringLiteral("rtol"), 1e-4}});
        QCOMPARE(chosen.atol, 3e-3);
        QVERIFY(chosen.toleranceExplicit);
        QCOMPARE(chosen.programVersion, QStringLiteral("unknown"));
    }

    void programVersionIsStored() {
        engine::EvalSettings s;
        QVERIFY(!s.programVersion.isEmpty());
        QCOMPARE(s.programVersion, engine::currentProgramVersion());
        QCOMPARE(s.toJson().value(QStringLiteral("program_version")).toString(),
                 engine::currentProgramVersion());
        QVERIFY(engine::currentProgramVersion() != QLatin1String("unknown"));
    }
};

QTEST_GUILESS_MAIN(TestPromptTemplate)
#include "tst_prompttemplate.moc"
