// kbstudio-cli import-candidates PATH --model NAME --suite S: reads a KernelBench run folder or a
// JSON-lines file of candidates, stores them as a run in one transaction (or nothing, with every
// problem listed) and evaluates the run like any other.

#include "importcandidatescommand.h"

#include "analysis/outcomes.h"
#include "clioptions.h"
#include "core/deviceprobe.h"
#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/runrepository.h"
#include "imports/candidateimport.h"
#include "progressline.h"
#include "report/leaderboardformat.h"
#include "run/runengine.h"
#include "runsummary.h"
#include "signalwatcher.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>
#include <QThread>
#include <csignal>

namespace kb::cli {

namespace {

// Evaluates a stored run to its end, as `run` does; returns the exit status.
int evaluate(engine::RunEngine& engine, db::Id runId, const QString& dbPath, bool quiet) {
    ProgressLine line(!quiet);
    QObject::connect(&engine, &engine::RunEngine::progress, &engine,
                     [&line](const engine::RunProgress& pr) { line.update(pr); });
    QObject::connect(&engine, &engine::RunEngine::attemptFinished, &engine,
                     [&line](const engine::AttemptResult& r) { line.attempt(r); });
    QObject::connect(&engine, &engine::RunEngine::logLine, &engine,
                     [&line](const QString& s) { line.message(s); });
    QString finalStatus;
    QString finalMessage;
    QObject::connect(&engine, &engine::RunEngine::runFinished, &engine,
                     [&](qint64, const QString& status, const QString& message) {
                         finalStatus = status;
                         finalMessage = message;
                         QCoreApplication::quit();
                     });
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
                .arg(dbPath));
        return 128 + (sig ? sig : SIGINT);
    }
    out(QStringLiteral("run %1 %2\n\n").arg(runId).arg(finalStatus));
    const bool finished = db::parseRunStatus(finalStatus.toStdString()) == db::RunStatus::Finished;
    if (!finished && !finalMessage.isEmpty())
        QTextStream(stderr) << "error: " << finalMessage << fileSizeLimitNote(finalMessage) << '\n';
    out(report::formatLeaderboardText(
        engine::leaderboardFor(engine.database().connection(), runId)));
    int exitCode = finished ? 0 : 1;
    out(operationalSummary(engine.database().connection(), runId, dbPath, &exitCode));
    return exitCode;
}

} // namespace

int importCandidatesCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Import candidates generated elsewhere and evaluate them like generated attempts.\n"
        "PATH is a KernelBench run folder (level_<L>_problem_<id>_sample_<k>_kernel.py files, one "
        "model: --model)\n"
        "or a JSON-lines file of {\"task\", \"model\", \"sample\", \"code\"} objects (a line's "
        "model overrides --model;\n"
        "the task by id, by name, or by \"level\" and \"problem_id\"). Nothing is stored when any "
        "file or line\n"
        "cannot be used; every problem is listed. See docs/import.md.\n"
        "Exit status as for run; 1 also when nothing was imported."));
    p.addOption(
        {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("suite"),
                 QStringLiteral("The suite the candidates solve (required)."),
                 QStringLiteral("NAME")});
    p.addOption({QStringLiteral("model"),
                 QStringLiteral("The model that wrote them (required for a run folder)."),
                 QStringLiteral("NAME")});
    p.addOption({QStringLiteral("name"), QStringLiteral("Run name."), QStringLiteral("NAME")});
    p.addOption(
        {QStringLiteral("no-evaluate"),
         QStringLiteral("Store the run only; evaluate later with run --resume ID or serve.")});
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
                 QStringLiteral("torch.compile mode: default, reduce-overhead, max-autotune or "
                                "max-autotune-no-cudagraphs."),
                 QStringLiteral("MODE"), QStringLiteral("default")});
    p.addOption(
        {QStringLiteral("tf32"), QStringLiteral("Allow TF32 matrix arithmetic on float32 tasks.")});
    p.addOption({QStringLiteral("max-timing-seconds"),
                 QStringLiteral("Time cap of one attempt's timing (default 10 on CUDA, 3 on CPU)."),
                 QStringLiteral("S")});
    p.addOption(
        {QStringLiteral("vendor-libraries"),
         QStringLiteral(
             "Vendor libraries candidates may call: none, gemm, conv or all (default none)."),
         QStringLiteral("WHICH"), QStringLiteral("none")});
    p.addOption({QStringLiteral("quiet"), QStringLiteral("No progress line.")});
    p.addPositionalArgument(QStringLiteral("PATH"),
                            QStringLiteral("KernelBench run folder or JSON-lines file"));
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("import-candidates"), code))
        return code;
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 1)
        return fail(QStringLiteral("usage: kbstudio-cli import-candidates PATH --suite NAME "
                                   "[--model NAME] [--db FILE]"),
                    2);
    if (!p.isSet(QStringLiteral("suite")))
        return fail(
            QStringLiteral("--suite is required: the suite whose tasks the candidates solve"), 2);

    engine::EvalSettings settings;
    bool ok = true;
    const auto number = [&](const QString& option, double low, double high) {
        bool good = false;
        const double v = p.value(option).toDouble(&good);
        if (!good || v < low || v > high)
            ok = false;
        return v;
    };
    settings.device = p.value(QStringLiteral("device"));
    if (!QStringList{QStringLiteral("cpu"), QStringLiteral("cuda"), QStringLiteral("auto")}
             .contains(settings.device))
        return fail(QStringLiteral("--device must be cpu, cuda or auto"), 2);
    settings.correctnessTrials = static_cast<int>(number(QStringLiteral("trials"), 1, 1000));
    settings.timingTrials =
        p.isSet(QStringLiteral("timing-trials"))
            ? static_cast<int>(number(QStringLiteral("timing-trials"), 1, 100000))
            : 0;
    settings.buildJobs = p.isSet(QStringLiteral("jobs"))
                             ? static_cast<int>(number(QStringLiteral("jobs"), 1, 1024))
                             : std::max(1, QThread::idealThreadCount());
    settings.timeoutSeconds = number(QStringLiteral("timeout"), 1e-3, 1e7);
    settings.buildTimeoutSeconds = number(QStringLiteral("build-timeout"), 1e-3, 1e7);
    settings.maxTimingSeconds = p.isSet(QStringLiteral("max-timing-seconds"))
                                    ? number(QStringLiteral("max-timing-seconds"), 1e-3, 3600)
                                    : 0.0;
    if (!ok)
        return fail(QStringLiteral("--trials, --timing-trials, --jobs, --timeout, --build-timeout "
                                   "and --max-timing-seconds "
                                   "must be positive numbers"),
                    2);
    settings.compileBaseline = p.isSet(QStringLiteral("compile"));
    settings.compileMode = p.value(QStringLiteral("compile-mode"));
    if (!QStringList{QStringLiteral("default"), QStringLiteral("reduce-overhead"),
                     QStringLiteral("max-autotune"), QStringLiteral("max-autotune-no-cudagraphs")}
             .contains(settings.compileMode))
        return fail(QStringLiteral("--compile-mode must be default, reduce-overhead, max-autotune "
                                   "or max-autotune-no-cudagraphs"),
                    2);
    settings.allowTf32 = p.isSet(QStringLiteral("tf32"));
    settings.vendorLibraries = p.value(QStringLiteral("vendor-libraries"));
    if (!QStringList{QStringLiteral("none"), QStringLiteral("gemm"), QStringLiteral("conv"),
                     QStringLiteral("all")}
             .contains(settings.vendorLibraries))
        return fail(QStringLiteral("--vendor-libraries must be none, gemm, conv or all"), 2);

    const QString dbPath = databasePath(p);
    try {
        engine::RunEngine engine(dbPath);
        engine.ensureDemoCatalog();
        auto& conn = engine.database().connection();
        db::CatalogRepository catalog(conn);
        const QString suiteName = p.value(QStringLiteral("suite"));
        const auto suite = catalog.suiteByName(suiteName.toStdString());
        if (!suite)
            return fail(
                QStringLiteral(
                    "no suite named '%1' in %2 (import it first: kbstudio-cli suite import)")
                    .arg(suiteName, dbPath));
        const auto import = engine::readCandidates(pos[0], p.value(QStringLiteral("model")),
                                                   catalog.tasks(suite->id));
        if (!import.problems.isEmpty()) {
            for (const auto& problem : import.problems)
                QTextStream(stderr) << "problem: " << problem << '\n';
            return fail(
                QStringLiteral(
                    "%1 problem(s) with the candidates in %2 (suite '%3'); nothing was imported")
                    .arg(import.problems.size())
                    .arg(pos[0], suiteName));
        }
        if (settings.device == QLatin1String("auto"))
            settings.device = engine::detectDevice();
        if (settings.timingTrials == 0)
            settings.timingTrials = settings.device == QLatin1String("cuda") ? 100 : 30;
        if (settings.maxTimingSeconds <= 0)
            settings.maxTimingSeconds = settings.device == QLatin1String("cuda") ? 10.0 : 3.0;
        const QStringList models = import.models();
        const QString runName = p.isSet(QStringLiteral("name"))
                                    ? p.value(QStringLiteral("name"))
                                    : QStringLiteral("%1 / imported %2")
                                          .arg(suiteName, models.join(QStringLiteral(", ")));
        const auto stored = engine::storeImportedRun(conn, suite->id, runName, settings, import);
        out(QStringLiteral(
                "run %1: %2 (database %3)\nimported %4 candidate(s) of %5 model(s) (%6) from %7\n")
                .arg(stored.runId)
                .arg(runName, dbPath)
                .arg(stored.attempts)
                .arg(models.size())
                .arg(models.join(QStringLiteral(", ")), pos[0]));
        if (p.isSet(QStringLiteral("no-evaluate"))) {
            out(QStringLiteral("evaluate it with: kbstudio-cli run --resume %1 --db %2\n")
                    .arg(stored.runId)
                    .arg(dbPath));
            return 0;
        }
        return evaluate(engine, stored.runId, dbPath, p.isSet(QStringLiteral("quiet")));
    } catch (const engine::Error& e) {
        return fail(e.message() + fileSizeLimitNote(e.message()));
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()) + fileSizeLimitNote(QString::fromUtf8(e.what())));
    }
}

} // namespace kb::cli
