// The run launcher: which tasks a plan selects, the RunSpec it becomes, the cost and time
// estimate from stored history or stated defaults, the dialog round trip, creating the run, and
// starting it in the background as a detached process.

#include "data/catalogloader.h"
#include "data/catalogwriter.h"
#include "data/runlauncher.h"
#include "data/runplan.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "pages/runlauncherdialog.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;
using gui::RunPlan;

namespace {

gui::CatalogPtr catalogOf(const QString& path) {
    const auto r = gui::loadCatalogFile(path);
    if (!r.catalog)
        qFatal("cannot load catalog: %s", qPrintable(r.error));
    return r.catalog;
}

RunPlan planFor(const gui::Catalog& c) {
    RunPlan p;
    p.suiteId = c.suites.front().id;
    p.models = {QStringLiteral("demo-a")};
    return p;
}

} // namespace

class TestLauncher : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void selectsTasksByLevelAndFilter() {
        test::GuiFixture fixture;
        const auto c = catalogOf(fixture.path());
        RunPlan p = planFor(*c);
        QCOMPARE(gui::plannedTasks(*c, p).size(), size_t(4));
        p.levels = {1};
        QCOMPARE(gui::plannedTasks(*c, p).size(), size_t(2));
        p.taskFilter = QStringLiteral("RELU");
        QCOMPARE(gui::plannedTasks(*c, p).size(), size_t(1));
    }

    void becomesARunSpec() {
        test::GuiFixture fixture;
        const auto c = catalogOf(fixture.path());
        RunPlan p = planFor(*c);
        p.taskFilter = QStringLiteral("matmul");
        p.baseline = gui::BaselineMode::MaxAutotune;
        p.backend = gui::Backend::Slurm;
        p.mode = QStringLiteral("agent");
        p.skillFile = QStringLiteral("my-skill.md");
        p.precision = QStringLiteral("bf16");
        QString error;
        const auto spec = gui::toRunSpec(*c, p, &error);
        QVERIFY2(spec, qPrintable(error));
        QCOMPARE(spec->suite, QStringLiteral("sample"));
        QCOMPARE(spec->tasks, QStringList{QStringLiteral("l1_matmul")});
        QVERIFY(spec->settings.compileBaseline);
        QCOMPARE(spec->settings.compileMode, QStringLiteral("max-autotune"));
        QCOMPARE(spec->settings.backend, QStringLiteral("slurm"));
        QCOMPARE(spec->settings.device, QStringLiteral("cuda"));
        QCOMPARE(spec->settings.precision, QStringLiteral("bf16"));
        QCOMPARE(spec->settings.atol, 1e-2); // the precision's tolerance
        QCOMPARE(spec->settings.rtol, 1e-2);
        QCOMPARE(spec->generation.skillName, QStringLiteral("my-skill.md"));
        p.backend = gui::Backend::Cpu;
        p.baseline = gui::BaselineMode::Eager;
        QCOMPARE(gui::toRunSpec(*c, p, &error)->settings.device, QStringLiteral("cpu"));
        QVERIFY(!gui::toRunSpec(*c, p, &error)->settings.compileBaseline);

        p.models.clear();
        QVERIFY(!gui::toRunSpec(*c, p, &error));
        QVERIFY(error.contains(QStringLiteral("at least one model")));
        p.models = {QStringLiteral("nope")};
        QVERIFY(!gui::toRunSpec(*c, p, &error));
        QVERIFY(error.contains(QStringLiteral("'nope'")));
        p.models = {QStringLiteral("demo-a")};
        p.taskFilter = QStringLiteral("no-such-task");
        QVERIFY(!gui::toRunSpec(*c, p, &error));
        QVERIFY(error.contains(QStringLiteral("No task")));
    }

    void estimatesFromHistoryAndPrices() {
        test::GuiFixture fixture;
        auto c = catalogOf(fixture.path());
        RunPlan p = planFor(*c);
        // demo-a: 5 stored calls of 1,200 in / 800 out tokens; 4 tasks, one sample
        auto e = gui::estimateRun(*c, p);
        QCOMPARE(e.tasks, 4);
        QCOMPARE(e.attempts, 4);
        QCOMPARE(e.inputTokens, qint64(4 * 1200));
        QCOMPARE(e.outputTokens, qint64(4 * 800));
        QVERIFY(e.costUsd); // the demo provider costs nothing
        QCOMPARE(*e.costUsd, 0.0);
        QVERIFY(e.seconds > 0);
        QVERIFY(e.notes.join(QLatin1Char(' ')).contains(QStringLiteral("from 5 stored calls")));

        db::ModelRow m = *c->findModelByName(QStringLiteral("demo-a"));
        m.priceInPerMTok = 1.0;
        m.priceOutPerMTok = 2.0;
        QVERIFY(gui::saveModel(fixture.path(), m).isEmpty());
        c = catalogOf(fixture.path());
        p.mode = QStringLiteral("multi-turn");
        p.turns = 3;
        p.samples = 2;
        e = gui::estimateRun(*c, p);
        QCOMPARE(e.attempts, 8);
        QCOMPARE(e.inputTokens, qint64(8 * 3 * 1200));
        QVERIFY(std::abs(*e.costUsd - (8 * 3 * 1200 * 1.0 + 8 * 3 * 800 * 2.0) / 1e6) < 1e-12);
        QVERIFY(e.text().contains(QStringLiteral("8 attempts")));

        // a model without history or prices at a real provider
        db::ProviderRow provider;
        provider.name = "remote";
        provider.kind = "openai";
        provider.baseUrl = "https://api.example.com/v1";
        db::Id pid = 0;
        QVERIFY(gui::saveProvider(fixture.path(), provider, &pid).isEmpty());
        db::ModelRow fresh;
        fresh.providerId = pid;
        fresh.name = "fresh";
        QVERIFY(gui::saveModel(fixture.path(), fresh).isEmpty());
        c = catalogOf(fixture.path());
        p = planFor(*c);
        p.models = {QStringLiteral("fresh")};
        e = gui::estimateRun(*c, p);
        QCOMPARE(e.inputTokens, 4 * gui::kDefaultInputTokensPerCall);
        QCOMPARE(e.seconds, 4 * gui::kDefaultSecondsPerAttempt);
        QVERIFY(!e.costUsd);
        QVERIFY(e.text().contains(QStringLiteral("cost unknown")));
    }

    void dialogRoundTrip() {
        test::GuiFixture fixture;
        const auto c = catalogOf(fixture.path());
        gui::RunLauncherDialog dialog(c);
        QVERIFY(dialog.validationError().contains(QStringLiteral("model")));
        RunPlan p = planFor(*c);
        p.models << QStringLiteral("demo-b");
        p.levels = {1, 2};
        p.samples = 3;
        p.mode = QStringLiteral("multi-turn");
        p.turns = 4;
        p.baseline = gui::BaselineMode::Eager;
        p.backend = gui::Backend::Cpu;
        p.maxTokens = 4096;
        p.tf32 = true;
        p.precision = QStringLiteral("bf16");
        p.compileMode = QStringLiteral("reduce-overhead");
        p.promptTemplate = QStringLiteral("kernelbench");
        dialog.setPlan(p);
        const RunPlan back = dialog.plan();
        QCOMPARE(back.models, p.models);
        QCOMPARE(back.levels, p.levels);
        QCOMPARE(back.samples, 3);
        QCOMPARE(back.mode, QStringLiteral("multi-turn"));
        QCOMPARE(back.turns, 4);
        QCOMPARE(int(back.baseline), int(gui::BaselineMode::Eager));
        QCOMPARE(int(back.backend), int(gui::Backend::Cpu));
        QCOMPARE(back.maxTokens, 4096);
        QVERIFY(back.tf32);
        QCOMPARE(back.precision, QStringLiteral("bf16"));
        QCOMPARE(back.compileMode, QStringLiteral("reduce-overhead"));
        QCOMPARE(back.promptTemplate, QStringLiteral("kernelbench"));
        // a template file is listed under its name and comes back as its path
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("mine.prompt"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("@user\n{task_source}\n");
        f.close();
        p.promptTemplate = file;
        dialog.setPlan(p);
        QCOMPARE(dialog.plan().promptTemplate, file);
        p.promptTemplate.clear(); // the suite's default
        dialog.setPlan(p);
        QCOMPARE(dialog.plan().promptTemplate, QString());
        // max-autotune (the former baseline choice) shows as a compile mode
        p.baseline = gui::BaselineMode::MaxAutotune;
        dialog.setPlan(p);
        QCOMPARE(int(dialog.plan().baseline), int(gui::BaselineMode::EagerAndCompile));
        QCOMPARE(dialog.plan().compileMode, QStringLiteral("max-autotune"));
        QVERIFY(dialog.validationError().isEmpty());
        QVERIFY2(dialog.estimateText().contains(QStringLiteral("18 attempts")),
                 qPrintable(dialog.estimateText()));
    }

    void createsTheRunAndStartsItDetached() {
        test::GuiFixture fixture;
        const auto c = catalogOf(fixture.path());
        RunPlan p = planFor(*c);
        p.levels = {1};
        p.maxTokens = 8192;
        p.precision = QStringLiteral("fp16");
        p.tf32 = true;
        p.compileMode = QStringLiteral("reduce-overhead");
        p.promptTemplate = QStringLiteral("kernelbench");
        p.backend = gui::Backend::Cpu;
        QString error;
        const auto spec = gui::toRunSpec(*c, p, &error);
        QVERIFY(spec);
        const db::Id runId =
            gui::createRunFromSpec(fixture.path(), *spec, gui::launcherSettings(p), &error);
        QVERIFY2(runId > 0, qPrintable(error));
        {
            db::Database database(fixture.path().toStdString(), db::Database::Access::ReadOnly);
            db::RunRepository runs(database.connection());
            QCOMPARE(runs.attempts(runId).size(), size_t(2));
            // every launcher setting is applied: stored where the engine reads it
            const QJsonObject settings =
                QJsonDocument::fromJson(QByteArray::fromStdString(runs.run(runId)->settingsJson))
                    .object();
            const QJsonObject generation = settings.value(QStringLiteral("generation")).toObject();
            QCOMPARE(generation.value(QStringLiteral("max_tokens")).toInt(), 8192);
            QCOMPARE(generation.value(QStringLiteral("prompt_template")).toString(),
                     QStringLiteral("kernelbench"));
            QCOMPARE(generation.value(QStringLiteral("prompt_template_sha256")).toString().size(),
                     64);
            QCOMPARE(settings.value(QStringLiteral("precision")).toString(),
                     QStringLiteral("fp16"));
            QCOMPARE(settings.value(QStringLiteral("atol")).toDouble(), 1e-2);
            QCOMPARE(settings.value(QStringLiteral("rtol")).toDouble(), 1e-2);
            QVERIFY(settings.value(QStringLiteral("allow_tf32")).toBool());
            QCOMPARE(settings.value(QStringLiteral("compile_mode")).toString(),
                     QStringLiteral("reduce-overhead"));
            QVERIFY(!settings.value(QStringLiteral("program_version")).toString().isEmpty());
            // the launcher's own choices, beside the engine's settings
            QCOMPARE(settings.value(QStringLiteral("launcher")).toObject(),
                     gui::launcherSettings(p));
        }

        QTemporaryDir dir;
        const QString script = dir.filePath(QStringLiteral("fake-cli"));
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("#!/bin/sh\necho \"$@\" > '%1'\n")
                    .arg(dir.filePath(QStringLiteral("args.txt")))
                    .toUtf8());
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QCOMPARE(gui::startRunInBackground(fixture.path(), runId, script), QString());
        const auto written = [&]() {
            QFile args(dir.filePath(QStringLiteral("args.txt")));
            return args.open(QIODevice::ReadOnly) ? QString::fromUtf8(args.readAll()).trimmed()
                                                  : QString();
        };
        QTRY_VERIFY_WITH_TIMEOUT(!written().isEmpty(), 5000);
        QCOMPARE(written(),
                 QStringLiteral("run --db %1 --resume %2 --quiet").arg(fixture.path()).arg(runId));

        QVERIFY(gui::startRunInBackground(fixture.path(), runId, QString())
                    .contains(QStringLiteral("not found")));
    }
};

QTEST_MAIN(TestLauncher)
#include "tst_launcher.moc"
