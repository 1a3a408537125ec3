#include "controlcommand.h"

#include "clioptions.h"
#include "db/database.h"
#include "db/leaserepository.h"
#include "db/runrepository.h"
#include "run/enginelease.h"
#include "run/runcontrol.h"
#include "scheduler/enginepresence.h"

#include <QCommandLineParser>

namespace kb::cli {
namespace {

QString holderText(db::Connection& conn, db::Id runId) {
    db::LeaseRepository leases(conn);
    const auto holder =
        leases.holderOf(runId, db::LeaseRepository::now(), engine::kEngineLeaseSeconds);
    if (!holder || engine::engineKnownDead(*holder))
        return {};
    return QStringLiteral("%1 engine on %2 (pid %3)")
        .arg(QString::fromStdString(holder->kind), QString::fromStdString(holder->host))
        .arg(holder->pid);
}

} // namespace

int controlCommand(const QString& command, const QStringList& args) {
    QCommandLineParser p;
    if (command == QLatin1String("pause"))
        p.setApplicationDescription(
            QStringLiteral("Pause a run: the attempts in flight finish, nothing new starts."));
    else if (command == QLatin1String("resume"))
        p.setApplicationDescription(QStringLiteral("Resume a paused run."));
    else if (command == QLatin1String("cancel"))
        p.setApplicationDescription(
            QStringLiteral("Cancel a run, or only one model's or one task's attempts of it."));
    else
        p.setApplicationDescription(
            QStringLiteral("Set the priority of a run (or of one model's or task's attempts of "
                           "it); higher runs first."));
    p.addOption(
        {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("run"), QStringLiteral("Run id."), QStringLiteral("ID")});
    if (command == QLatin1String("cancel") || command == QLatin1String("priority")) {
        p.addOption({QStringLiteral("model"), QStringLiteral("Only this model's attempts."),
                     QStringLiteral("NAME")});
        p.addOption({QStringLiteral("task"), QStringLiteral("Only this task's attempts."),
                     QStringLiteral("KEY")});
    }
    if (command == QLatin1String("priority"))
        p.addOption({QStringLiteral("set"),
                     QStringLiteral("The new priority (an integer; default 0)."),
                     QStringLiteral("P")});
    int code = 0;
    if (!parseCommandLine(p, args, command, code))
        return code;
    if (!p.isSet(QStringLiteral("run")))
        return fail(QStringLiteral("--run is required"), 2);
    bool ok = false;
    const db::Id runId = p.value(QStringLiteral("run")).toLongLong(&ok);
    if (!ok || runId <= 0)
        return fail(QStringLiteral("--run needs a run id"), 2);
    const std::string model =
        command == QLatin1String("cancel") || command == QLatin1String("priority")
            ? p.value(QStringLiteral("model")).toStdString()
            : std::string();
    const std::string task =
        command == QLatin1String("cancel") || command == QLatin1String("priority")
            ? p.value(QStringLiteral("task")).toStdString()
            : std::string();
    try {
        db::Database database(databasePath(p).toStdString());
        auto& conn = database.connection();
        db::RunRepository runs(conn);
        const auto run = runs.run(runId);
        if (!run)
            return fail(QStringLiteral("no run with id %1 in %2").arg(runId).arg(databasePath(p)));
        const QString status = QString::fromStdString(run->status);
        const QString holder = holderText(conn, runId);
        const QString who =
            holder.isEmpty()
                ? QStringLiteral("no engine is working on it")
                : QStringLiteral("the %1 working on it notices within seconds").arg(holder);
        const bool ended = engine::isEndedRunStatus(run->status);

        if (command == QLatin1String("priority")) {
            if (!p.isSet(QStringLiteral("set")))
                return fail(QStringLiteral("--set P is required"), 2);
            const int priority = p.value(QStringLiteral("set")).toInt(&ok);
            if (!ok)
                return fail(QStringLiteral("--set needs an integer"), 2);
            if (model.empty() && task.empty()) {
                engine::setRunPriority(conn, runId, priority);
                out(QStringLiteral("run %1: priority %2\n").arg(runId).arg(priority));
            } else {
                const int n = engine::setAttemptPriority(conn, runId, priority, model, task);
                out(QStringLiteral("run %1: %2 attempt(s) at priority %3 (order applies when an "
                                   "engine next takes the run)\n")
                        .arg(runId)
                        .arg(n)
                        .arg(priority));
            }
            return 0;
        }
        if (ended)
            return fail(QStringLiteral("run %1 is already %2").arg(runId).arg(status));
        if (command == QLatin1String("pause")) {
            if (run->runStatus() == db::RunStatus::Paused) {
                out(QStringLiteral("run %1 is already paused\n").arg(runId));
                return 0;
            }
            engine::pauseRun(conn, runId);
            out(QStringLiteral("run %1 paused; %2\n").arg(runId).arg(who));
            return 0;
        }
        if (command == QLatin1String("resume")) {
            if (run->runStatus() != db::RunStatus::Paused) {
                out(QStringLiteral("run %1 is not paused (%2)\n").arg(runId).arg(status));
                return 0;
            }
            engine::resumeRun(conn, runId);
            out(holder.isEmpty() ? QStringLiteral("run %1 resumed; no engine is working on it: a "
                                                  "running `kbstudio-cli serve` takes it up, "
                                                  "or run `kbstudio-cli run --resume %1`\n")
                                       .arg(runId)
                                 : QStringLiteral("run %1 resumed; %2\n").arg(runId).arg(who));
            return 0;
        }
        // cancel
        if (model.empty() && task.empty()) {
            const int n = engine::cancelRun(conn, runId);
            out(QStringLiteral("run %1 cancelled (%2 unfinished attempt(s)); %3\n")
                    .arg(runId)
                    .arg(n)
                    .arg(who));
            return 0;
        }
        const std::string what = engine::attemptSelectionText(model, task);
        const int n = engine::cancelRunAttempts(conn, runId, model, task);
        out(QStringLiteral("run %1: %2 unfinished attempt(s) of %3 cancelled; %4\n")
                .arg(runId)
                .arg(n)
                .arg(QString::fromStdString(what), who));
        return 0;
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

} // namespace kb::cli
