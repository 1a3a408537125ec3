#include "analysis/outcomes.h"
#include "clioptions.h"
#include "core/deviceprobe.h"
#include "core/error.h"
#include "core/paths.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "generation/generationsettings.h"
#include "generation/preflight.h"
#include "generation/providerclients.h"
#include "progressline.h"
#include "report/leaderboardformat.h"
#include "report/runsettingssummary.h"
#include "run/enginelease.h"
#include "run/runengine.h"
#include "runsummary.h"
#include "scheduler/enginepresence.h"
#include "signalwatcher.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QThread>
#include <algorithm>
#include <csignal>
#include <iostream>
#include <map>
#include <optional>

namespace kb::cli {

int fail(const QString& message, int code) {
    QTextStream(stderr) << "error: " << message << '\n';
    return code;
}

void out(const QString& text) {
    QTextStream(stdout) << text;
}

bool parseCommandLine(QCommandLineParser& parser, const QStringList& args, const QString& command,
                      int& exitCode) {
    parser.addHelpOption();
    QStringList full = args;
    full.prepend(QStringLiteral("kbstudio-cli ") + command);
    if (!parser.parse(full)) {
        exitCode = fail(parser.errorText(), 2);
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        out(parser.helpText());
        exitCode = 0;
        return false;
    }
    return true;
}

QString databasePath(const QCommandLineParser& parser) {
    return parser.isSet(QStringLiteral("db")) ? parser.value(QStringLiteral("db"))
                                              : engine::defaultDatabasePath();
}

namespace {

QCommandLineOption dbOption() {
    return {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")};
}

// The spec of a stored run, to create it again with exactly the same settings: suite, models,
// tasks, samples, mode, evaluation settings, generation settings with the prompt template's
// full text. Only the secret seed is new (a published seed would let inputs be predicted).
std::optional<engine::RunSpec> specLike(const QString& dbPath, db::Id runId, QString* error) {
    if (!QFileInfo::exists(dbPath)) {
        *error = QStringLiteral("no run with id %1: the database %2 does not exist")
                     .arg(runId)
                     .arg(dbPath);
        return std::nullopt;
    }
    db::Database database(dbPath.toStdString(), db::Database::Access::ReadOnly);
    auto& conn = database.connection();
    const auto run = db::RunRepository(conn).run(runId);
    if (!run) {
        *error = QStringLiteral("no run with id %1 in %2").arg(runId).arg(dbPath);
        return std::nullopt;
    }
    const QJsonObject settings =
        QJsonDocument::fromJson(QByteArray::fromStdString(run->settingsJson)).object();
    engine::RunSpec spec;
    spec.name = QStringLiteral("%1 (again)").arg(QString::fromStdString(run->name));
    spec.suite = QString::fromStdString(run->suiteName);
    spec.mode = QString::fromStdString(run->mode);
    spec.samples = settings.value(QStringLiteral("samples")).toInt(1);
    spec.settings = engine::EvalSettings::fromJson(settings);
    spec.settings.seed = 0;
    spec.settings.programVersion = engine::currentProgramVersion();
    spec.generation = engine::GenerationSettings::fromJson(
        settings.value(QStringLiteral("generation")).toObject());
    std::map<db::Id, QString> modelRefs;
    for (const auto& m : db::CatalogRepository(conn).models())
        modelRefs[m.id] = QString::fromStdString(m.providerName + "/" + m.name);
    int mostSamples = 0;
    for (const auto& a : db::RunRepository(conn).attempts(runId)) {
        const QString model = modelRefs.count(a.modelId) ? modelRefs.at(a.modelId)
                                                         : QString::fromStdString(a.modelName);
        if (!spec.models.contains(model))
            spec.models << model;
        if (!spec.tasks.contains(QString::fromStdString(a.taskKey)))
            spec.tasks << QString::fromStdString(a.taskKey);
        mostSamples = std::max(mostSamples, a.sampleIndex + 1);
    }
    if (!settings.contains(QStringLiteral("samples")) && mostSamples > 0)
        spec.samples = mostSamples;
    if (spec.models.isEmpty()) {
        *error =
            QStringLiteral("run %1 has no attempts to take its models and tasks from").arg(runId);
        return std::nullopt;
    }
    return spec;
}

} // namespace

int runCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("Create a run and evaluate it.\n"
                       "Before the first attempt each model gets one short request built like the "
                       "run's; on --resume too, for a run that has started before (skip with "
                       "--no-preflight).\n"
                       "Exit status: 0 finished; 1 failed or stopped early (e.g. a provider "
                       "refusing every request); 2 usage;\n"
                       "3 finished, but some attempts met provider or infrastructure errors (not "
                       "scored; --resume retries them);\n"
                       "128+N stopped by signal N (SIGINT, SIGTERM and SIGHUP stop gracefully; "
                       "--resume continues)."));
    p.addOption(dbOption());
    p.addOption({QStringLiteral("suite"), QStringLiteral("Suite name (default: sample)."),
                 QStringLiteral("NAME"), QStringLiteral("sample")});
    p.addOption({QStringLiteral("models"),
                 QStringLiteral("Comma-separated models: provider/model, or a model's name where "
                                "only one provider has it."),
                 QStringLiteral("LIST")});
    p.addOption({QStringLiteral("tasks"),
                 QStringLiteral("Comma-separated task ids (default: all)."),
                 QStringLiteral("LIST")});
    p.addOption({QStringLiteral("levels"), QStringLiteral("Comma-separated levels (default: all)."),
                 QStringLiteral("LIST")});
    p.addOption({QStringLiteral("samples"), QStringLiteral("Samples per task (default 1)."),
                 QStringLiteral("K"), QStringLiteral("1")});
    p.addOption({QStringLiteral("device"), QStringLiteral("cpu, cuda or auto (default auto)."),
                 QStringLiteral("DEVICE"), QStringLiteral("auto")});
    p.addOption({QStringLiteral("trials"), QStringLiteral("Correctness trials (default 5)."),
                 QStringLiteral("N"), QStringLiteral("5")});
    p.addOption({QStringLiteral("timing-trials"),
                 QStringLiteral("Timing samples (default 30 on CPU, 100 on CUDA)."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("jobs"), QStringLiteral("Parallel builds (default: CPU cores)."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("timeout"),
                 QStringLiteral("Seconds for one evaluation (default 300)."), QStringLiteral("S"),
                 QStringLiteral("300")});
    p.addOption({QStringLiteral("build-timeout"),
                 QStringLiteral("Seconds for one build (default 900)."), QStringLiteral("S"),
                 QStringLiteral("900")});
    p.addOption(
        {QStringLiteral("compile"), QStringLiteral("Also time torch.compile as a baseline.")});
    p.addOption({QStringLiteral("compile-mode"),
                 QStringLiteral("torch.compile mode of that baseline: default, reduce-overhead, "
                                "max-autotune or max-autotune-no-cudagraphs (default default)."),
                 QStringLiteral("MODE"), QStringLiteral("default")});
    p.addOption(
        {QStringLiteral("tf32"), QStringLiteral("Allow TF32 matrix arithmetic on float32 tasks "
                                                "(off by default; recorded with every number).")});
    p.addOption(
        {QStringLiteral("max-timing-seconds"),
         QStringLiteral(
             "Time cap of one attempt's interleaved timing (default 10 on CUDA, 3 on CPU)."),
         QStringLiteral("S")});
    p.addOption(
        {QStringLiteral("vendor-libraries"),
         QStringLiteral(
             "Vendor libraries candidates may call: none, gemm, conv or all (default none)."),
         QStringLiteral("WHICH"), QStringLiteral("none")});
    p.addOption({QStringLiteral("name"), QStringLiteral("Run name."), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("mode"),
                 QStringLiteral("one-shot, multi-turn or agent (default one-shot)."),
                 QStringLiteral("MODE"), QStringLiteral("one-shot")});
    p.addOption({QStringLiteral("turns"),
                 QStringLiteral("multi-turn: candidates per attempt at most (default 3)."),
                 QStringLiteral("T"), QStringLiteral("3")});
    p.addOption({QStringLiteral("max-turns"),
                 QStringLiteral("agent: model calls per attempt at most (default 200)."),
                 QStringLiteral("N"), QStringLiteral("200")});
    p.addOption({QStringLiteral("skill"),
                 QStringLiteral("Skill name (under skills/) or skill file the model follows (agent "
                                "default: cuda-kernel-optimization)."),
                 QStringLiteral("NAME|FILE")});
    p.addOption({QStringLiteral("temperature"),
                 QStringLiteral("Sampling temperature (default: the provider's)."),
                 QStringLiteral("T")});
    p.addOption({QStringLiteral("max-tokens"),
                 QStringLiteral("Output tokens per model call (default 16384)."),
                 QStringLiteral("N"), QStringLiteral("16384")});
    p.addOption({QStringLiteral("no-stream"),
                 QStringLiteral("Ask for whole answers instead of streams (a provider's or model's "
                                "stream setting still wins).")});
    p.addOption(
        {QStringLiteral("no-preflight"),
         QStringLiteral("Skip the check request sent to each model before the first attempt.")});
    p.addOption(
        {QStringLiteral("precision"),
         QStringLiteral(
             "fp32, fp16 or bf16: inputs and weights in this precision, and its tolerance (1e-4 "
             "for fp32, 1e-2 for fp16 and bf16) unless --atol/--rtol (default fp32)."),
         QStringLiteral("P"), QStringLiteral("fp32")});
    p.addOption(
        {QStringLiteral("atol"),
         QStringLiteral("Absolute tolerance of the correctness check (default: the precision's)."),
         QStringLiteral("X")});
    p.addOption(
        {QStringLiteral("rtol"),
         QStringLiteral("Relative tolerance of the correctness check (default: the precision's)."),
         QStringLiteral("X")});
    p.addOption(
        {QStringLiteral("prompt-template"),
         QStringLiteral("One-shot/multi-turn prompt: a built-in (kernelbench, kbstudio) or a "
                        "template file; its text is stored with the run "
                        "(default: kernelbench for suites named kernelbench*, else kbstudio)."),
         QStringLiteral("NAME|FILE")});
    p.addOption({QStringLiteral("like"),
                 QStringLiteral("Create a new run with exactly the settings of run ID (suite, "
                                "models, tasks, samples, mode, evaluation settings, "
                                "prompt template text); options given as well override them."),
                 QStringLiteral("ID")});
    p.addOption({QStringLiteral("resume"),
                 QStringLiteral("Resume the run with this id instead of creating one."),
                 QStringLiteral("ID")});
    p.addOption({QStringLiteral("quiet"), QStringLiteral("No progress line.")});
    p.addOption({QStringLiteral("backend"),
                 QStringLiteral("Where evaluations run: local or slurm (default local)."),
                 QStringLiteral("BACKEND"), QStringLiteral("local")});
    p.addOption(
        {QStringLiteral("slurm-partition"),
         QStringLiteral("Slurm partition for evaluation jobs (default: the cluster's default)."),
         QStringLiteral("P")});
    p.addOption({QStringLiteral("priority"),
                 QStringLiteral("Run priority; higher runs first under serve (default 0)."),
                 QStringLiteral("P"), QStringLiteral("0")});
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("run"), code))
        return code;

    const bool resume = p.isSet(QStringLiteral("resume"));
    engine::RunSpec spec;
    const bool like = p.isSet(QStringLiteral("like"));
    if (resume && like)
        return fail(QStringLiteral("--resume and --like exclude each other"), 2);
    if (!resume) {
        if (like) {
            QString error;
            try {
                const auto stored =
                    specLike(databasePath(p), p.value(QStringLiteral("like")).toLongLong(), &error);
                if (!stored)
                    return fail(error);
                spec = *stored;
            } catch (const db::Error& e) {
                return fail(QString::fromUtf8(e.what()));
            }
        } else if (!p.isSet(QStringLiteral("models"))) {
            return fail(QStringLiteral("--models is required (e.g. --models demo-a,demo-b)"), 2);
        }
        // Without --like every option applies (with its default); with it only those given.
        const auto given = [&p, like](const char* name) {
            return !like || p.isSet(QString::fromLatin1(name));
        };
        const auto value = [&p](const char* name) { return p.value(QString::fromLatin1(name)); };
        if (given("name"))
            spec.name = value("name");
        if (given("suite"))
            spec.suite = value("suite");
        if (given("models"))
            spec.models = value("models").split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (p.isSet(QStringLiteral("tasks")))
            spec.tasks = value("tasks").split(QLatin1Char(','), Qt::SkipEmptyParts);
        else if (like && p.isSet(QStringLiteral("suite")))
            spec.tasks.clear(); // another suite: its tasks
        if (given("levels")) {
            spec.levels.clear();
            for (const auto& l : value("levels").split(QLatin1Char(','), Qt::SkipEmptyParts))
                spec.levels << l.toInt();
        }
        if (given("samples"))
            spec.samples = value("samples").toInt();
        if (given("mode"))
            spec.mode = value("mode");
        if (given("turns"))
            spec.generation.turns = value("turns").toInt();
        if (given("max-turns"))
            spec.generation.maxTurns = value("max-turns").toInt();
        if (given("skill")) {
            spec.generation.skillName = value("skill");
            spec.generation.skillText.clear();
        }
        if (given("prompt-template")) {
            spec.generation.promptTemplate = value("prompt-template");
            spec.generation.promptTemplateText.clear(); // loaded again from the name or file
        }
        if (spec.mode != QLatin1String("one-shot") && spec.mode != QLatin1String("multi-turn") &&
            spec.mode != QLatin1String("agent"))
            return fail(QStringLiteral("--mode must be one-shot, multi-turn or agent"), 2);
        if (spec.generation.turns < 1 || spec.generation.maxTurns < 1)
            return fail(QStringLiteral("--turns and --max-turns must be at least 1"), 2);
        bool numberOk = true;
        if (given("max-tokens")) {
            spec.generation.maxTokens = value("max-tokens").toInt(&numberOk);
            if (!numberOk || spec.generation.maxTokens < 1)
                return fail(QStringLiteral("--max-tokens must be at least 1"), 2);
        }
        if (p.isSet(QStringLiteral("temperature"))) {
            spec.generation.temperature = value("temperature").toDouble(&numberOk);
            if (!numberOk || *spec.generation.temperature < 0 || *spec.generation.temperature > 2)
                return fail(
                    QStringLiteral(
                        "--temperature must be a number from 0 to 2 (0 to 1 for Anthropic models)"),
                    2);
        }
        if (given("no-stream"))
            spec.generation.stream = !p.isSet(QStringLiteral("no-stream"));
        if (given("device")) {
            const QString device = value("device");
            if (device != QLatin1String("cpu") && device != QLatin1String("cuda") &&
                device != QLatin1String("auto"))
                return fail(QStringLiteral("--device must be cpu, cuda or auto"), 2);
            spec.settings.device = device;
        }
        if (given("trials"))
            spec.settings.correctnessTrials = value("trials").toInt();
        if (given("timing-trials"))
            spec.settings.timingTrials =
                p.isSet(QStringLiteral("timing-trials")) ? value("timing-trials").toInt() : 0;
        if (given("jobs"))
            spec.settings.buildJobs = p.isSet(QStringLiteral("jobs"))
                                          ? value("jobs").toInt()
                                          : std::max(1, QThread::idealThreadCount());
        if (given("timeout"))
            spec.settings.timeoutSeconds = value("timeout").toDouble();
        if (given("build-timeout"))
            spec.settings.buildTimeoutSeconds = value("build-timeout").toDouble();
        if (given("compile"))
            spec.settings.compileBaseline = p.isSet(QStringLiteral("compile"));
        if (given("compile-mode"))
            spec.settings.compileMode = value("compile-mode");
        if (given("tf32"))
            spec.settings.allowTf32 = p.isSet(QStringLiteral("tf32"));
        if (given("precision")) {
            if (!engine::knownPrecisions().contains(value("precision")))
                return fail(QStringLiteral("--precision must be fp32, fp16 or bf16"), 2);
            spec.settings.toleranceExplicit = false;
            spec.settings.setPrecision(value("precision"));
        }
        if (p.isSet(QStringLiteral("atol")) || p.isSet(QStringLiteral("rtol"))) {
            bool aOk = true;
            bool rOk = true;
            const double atol =
                p.isSet(QStringLiteral("atol")) ? value("atol").toDouble(&aOk) : spec.settings.atol;
            const double rtol =
                p.isSet(QStringLiteral("rtol")) ? value("rtol").toDouble(&rOk) : spec.settings.rtol;
            if (!aOk || !rOk || !(atol >= 0) || !(rtol >= 0))
                return fail(QStringLiteral("--atol and --rtol must be numbers >= 0"), 2);
            spec.settings.setTolerance(atol, rtol);
        }
        if (given("max-timing-seconds"))
            spec.settings.maxTimingSeconds = p.isSet(QStringLiteral("max-timing-seconds"))
                                                 ? value("max-timing-seconds").toDouble()
                                                 : 0.0; // the device's default, below
        if (!QStringList{QStringLiteral("default"), QStringLiteral("reduce-overhead"),
                         QStringLiteral("max-autotune"),
                         QStringLiteral("max-autotune-no-cudagraphs")}
                 .contains(spec.settings.compileMode))
            return fail(
                QStringLiteral("--compile-mode must be default, reduce-overhead, max-autotune or "
                               "max-autotune-no-cudagraphs"),
                2);
        if (p.isSet(QStringLiteral("max-timing-seconds")) &&
            !(spec.settings.maxTimingSeconds > 0 && spec.settings.maxTimingSeconds <= 3600))
            return fail(QStringLiteral("--max-timing-seconds must be between 0 and 3600"), 2);
        if (given("vendor-libraries"))
            spec.settings.vendorLibraries = value("vendor-libraries");
        if (given("backend"))
            spec.settings.backend = value("backend");
        if (given("slurm-partition"))
            spec.settings.slurmPartition = value("slurm-partition");
        if (spec.settings.backend != QLatin1String("local") &&
            spec.settings.backend != QLatin1String("slurm"))
            return fail(QStringLiteral("--backend must be local or slurm"), 2);
        if (!QStringList{QStringLiteral("none"), QStringLiteral("gemm"), QStringLiteral("conv"),
                         QStringLiteral("all")}
                 .contains(spec.settings.vendorLibraries))
            return fail(QStringLiteral("--vendor-libraries must be none, gemm, conv or all"), 2);
        if (spec.samples < 1 || spec.settings.correctnessTrials < 1 ||
            spec.settings.timingTrials < 0 || spec.settings.buildJobs < 1 ||
            spec.settings.timeoutSeconds <= 0 || spec.settings.buildTimeoutSeconds <= 0)
            return fail(
                QStringLiteral(
                    "--samples, --trials, --timing-trials, --jobs and --timeout must be positive"),
                2);
    }

    try {
        engine::RunEngine engine(databasePath(p));
        engine.ensureDemoCatalog();
        db::Id runId = 0;
        // One short request per model before anything starts (a resumed run asks the models
        // it was created with, with its stored request settings).
        const auto preflightFails = [&](const engine::RunSpec& checked, const QString& what) {
            if (p.isSet(QStringLiteral("no-preflight")))
                return false;
            const auto keys = engine::defaultKeyStore();
            const auto check = engine::runPreflight(engine.database().connection(), checked.models,
                                                    checked.mode, checked.generation, keys.get());
            if (!check.checked.isEmpty())
                out(QStringLiteral("pre-flight: %1 model(s) asked, %2 refused\n")
                        .arg(check.checked.size())
                        .arg(check.errors.size()));
            if (check.ok())
                return false;
            fail(QStringLiteral("the pre-flight request failed, %1:\n  %2\n"
                                "fix the provider or model settings (or pass --no-preflight)")
                     .arg(what, check.errors.join(QStringLiteral("\n  "))));
            return true;
        };
        if (resume) {
            runId = p.value(QStringLiteral("resume")).toLongLong();
            // A run that never started was checked (or the check skipped) where it was
            // created: the GUI's launcher hands its runs to a background `run --resume`.
            const auto stored = db::RunRepository(engine.database().connection()).run(runId);
            QString error;
            if (stored && stored->runStatus() != db::RunStatus::Created) {
                if (const auto spec = specLike(databasePath(p), runId, &error)) {
                    if (preflightFails(*spec, QStringLiteral("the run was not resumed")))
                        return 1;
                }
            }
        } else {
            if (spec.settings.device == QLatin1String("auto"))
                spec.settings.device = engine::detectDevice();
            if (spec.settings.timingTrials == 0)
                spec.settings.timingTrials =
                    spec.settings.device == QLatin1String("cuda") ? 100 : 30;
            // interleaved timing samples until its interval is tight or this cap: a CPU's
            // clock rarely gets there, so it gets a shorter cap
            if (spec.settings.maxTimingSeconds <= 0)
                spec.settings.maxTimingSeconds =
                    spec.settings.device == QLatin1String("cuda") ? 10.0 : 3.0;
            if (preflightFails(spec, QStringLiteral("no run was created")))
                return 1;
            runId = engine.createRun(spec);
            db::QueueRepository(engine.database().connection())
                .setRunPriority(runId, p.value(QStringLiteral("priority")).toInt());
        }
        const auto run = db::RunRepository(engine.database().connection()).run(runId);
        if (!run)
            return fail(QStringLiteral("no run with id %1").arg(runId));
        out(QStringLiteral("run %1: %2 (database %3)\n")
                .arg(runId)
                .arg(QString::fromStdString(run->name), databasePath(p)));
        out(QStringLiteral("settings: %1\n").arg(report::runSettingsLine(*run)));

        ProgressLine line(!p.isSet(QStringLiteral("quiet")));
        QObject::connect(&engine, &engine::RunEngine::progress, &engine,
                         [&line](const engine::RunProgress& pr) { line.update(pr); });
        QObject::connect(&engine, &engine::RunEngine::attemptFinished, &engine,
                         [&line](const engine::AttemptResult& r) { line.attempt(r); });
        QObject::connect(&engine, &engine::RunEngine::logLine, &engine,
                         [&line](const QString& s) { line.message(s); });
        QString finalStatus;
        QObject::connect(&engine, &engine::RunEngine::runFinished, &engine,
                         [&finalStatus](qint64, const QString& status, const QString&) {
                             finalStatus = status;
                             QCoreApplication::quit();
                         });
        QString finalMessage;
        QObject::connect(&engine, &engine::RunEngine::runFinished, &engine,
                         [&finalMessage](qint64, const QString&, const QString& message) {
                             finalMessage = message;
                         });
        // SIGINT, SIGTERM and SIGHUP alike: in-flight work is stopped and queued again, the
        // leases released; the run resumes later with --resume.
        SignalWatcher stopSignals;
        QObject::connect(&stopSignals, &SignalWatcher::stopRequested, &engine, [&engine](int) {
            engine.stop();
            QCoreApplication::quit();
        });
        engine.start(runId);
        QCoreApplication::exec();
        line.finish();
        if (finalStatus.isEmpty()) {
            const int sig = stopSignals.lastSignal();
            out(QStringLiteral("%1; resume with: kbstudio-cli run --resume %2 --db %3\n")
                    .arg(sig ? QStringLiteral("stopped by %1").arg(SignalWatcher::signalName(sig))
                             : QStringLiteral("interrupted"))
                    .arg(runId)
                    .arg(databasePath(p)));
            return 128 + (sig ? sig : SIGINT);
        }
        out(QStringLiteral("run %1 %2\n\n").arg(runId).arg(finalStatus));
        if (finalStatus != engine::statusName(db::RunStatus::Finished) && !finalMessage.isEmpty())
            QTextStream(stderr) << "error: " << finalMessage << fileSizeLimitNote(finalMessage)
                                << '\n';
        out(report::runSettingsText({*run}));
        out(report::formatLeaderboardText(
            engine::leaderboardFor(engine.database().connection(), runId)));
        int exitCode = finalStatus == engine::statusName(db::RunStatus::Finished) ? 0 : 1;
        out(operationalSummary(engine.database().connection(), runId, databasePath(p), &exitCode));
        return exitCode;
    } catch (const engine::Error& e) {
        return fail(e.message() + fileSizeLimitNote(e.message()));
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()) + fileSizeLimitNote(QString::fromUtf8(e.what())));
    }
}

int statusCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("Show the runs in a database: attempts by state, and for live runs "
                       "the throughput, ETA and the engine working on them."));
    p.addOption(dbOption());
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("status"), code))
        return code;
    try {
        db::Database database(databasePath(p).toStdString(), db::Database::Access::ReadOnly);
        auto& conn = database.connection();
        db::RunRepository runs(conn);
        const auto all = runs.runs();
        if (all.empty()) {
            out(QStringLiteral("no runs in %1\n").arg(databasePath(p)));
            return 0;
        }
        db::QueueRepository queue(conn);
        db::LeaseRepository leases(conn);
        const double now = db::LeaseRepository::now();
        for (const auto& r : all) {
            const auto counts = runs.statusCounts(r.id);
            int total = 0;
            int unfinished = 0;
            QStringList parts;
            for (const auto& [status, n] : counts) {
                total += n;
                const auto known = db::parseAttemptStatus(status);
                if (!known || !db::isFinished(*known))
                    unfinished += n;
                parts << QStringLiteral("%1 %2").arg(n).arg(QString::fromStdString(status));
            }
            const int priority = queue.runPriority(r.id);
            out(QStringLiteral("run %1  %2  [%3]  %4 attempts: %5%6\n")
                    .arg(r.id)
                    .arg(QString::fromStdString(r.name), QString::fromStdString(r.status))
                    .arg(total)
                    .arg(parts.join(QStringLiteral(", ")))
                    .arg(priority != 0 ? QStringLiteral("  (priority %1)").arg(priority)
                                       : QString()));
            out(QStringLiteral("    settings: %1\n").arg(report::runSettingsLine(r)));
            auto holder = leases.holderOf(r.id, now, engine::kEngineLeaseSeconds);
            if (holder && engine::engineKnownDead(*holder))
                holder.reset();
            if (holder) {
                out(QStringLiteral("    engine: %1 on %2, pid %3, %4 backend, heartbeat %5 s ago\n")
                        .arg(QString::fromStdString(holder->kind),
                             QString::fromStdString(holder->host))
                        .arg(holder->pid)
                        .arg(QString::fromStdString(queue.runBackend(r.id)))
                        .arg(now - holder->heartbeatAt, 0, 'f', 1));
            } else if (unfinished > 0 && (r.runStatus() == db::RunStatus::Running ||
                                          r.runStatus() == db::RunStatus::Created)) {
                out(QStringLiteral("    no engine is working on it: kbstudio-cli serve --db FILE, "
                                   "or run --resume %1\n")
                        .arg(r.id));
            }
            if (holder || r.runStatus() == db::RunStatus::Running) {
                const auto t = queue.throughput(r.id, 600);
                const double rate = t.attemptsPerMinute();
                const QString eta =
                    rate > 0 ? QStringLiteral("ETA %1 min").arg(unfinished / rate, 0, 'f', 1)
                             : QStringLiteral("ETA --");
                out(QStringLiteral("    throughput %1 attempts/min (last 10 min), %2 left, %3\n")
                        .arg(rate, 0, 'f', 1)
                        .arg(unfinished)
                        .arg(eta));
            }
        }
        return 0;
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

int reportCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Print the leaderboard of a run."));
    p.addOption(dbOption());
    p.addOption({QStringLiteral("run"), QStringLiteral("Run id (default: every run)."),
                 QStringLiteral("ID"), QStringLiteral("0")});
    p.addOption({QStringLiteral("format"), QStringLiteral("text or markdown (default text)."),
                 QStringLiteral("FORMAT"), QStringLiteral("text")});
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("report"), code))
        return code;
    try {
        db::Database database(databasePath(p).toStdString(), db::Database::Access::ReadOnly);
        const db::Id runId = p.value(QStringLiteral("run")).toLongLong();
        auto& conn = database.connection();
        if (runId != 0 && !db::RunRepository(conn).run(runId))
            return fail(QStringLiteral("no run with id %1 in %2").arg(runId).arg(databasePath(p)));
        const auto board = engine::leaderboardFor(conn, runId);
        if (board.models.empty()) {
            out(QStringLiteral("no attempts in %1\n").arg(databasePath(p)));
            return 0;
        }
        std::vector<db::RunRow> runs;
        for (const auto& r : db::RunRepository(conn).runs()) {
            if (runId == 0 || r.id == runId)
                runs.push_back(r);
        }
        std::sort(runs.begin(), runs.end(),
                  [](const db::RunRow& a, const db::RunRow& b) { return a.id < b.id; });
        const QString format = p.value(QStringLiteral("format"));
        if (format == QLatin1String("markdown"))
            out(report::runSettingsMarkdown(runs) + report::formatLeaderboardMarkdown(board));
        else if (format == QLatin1String("text"))
            out(report::runSettingsText(runs) + QLatin1Char('\n') +
                report::formatLeaderboardText(board));
        else
            return fail(QStringLiteral("--format must be text or markdown"), 2);
        return 0;
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

} // namespace kb::cli
