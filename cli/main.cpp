#include "clioptions.h"
#include "controlcommand.h"
#include "exportcommand.h"
#include "importcandidatescommand.h"
#include "providercommand.h"
#include "servecommand.h"
#include "signalwatcher.h"

#include <QCoreApplication>
#include <QTextStream>

namespace {
const char* kUsage = R"(Usage: kbstudio-cli <command> [options]

Commands:
  run      Create a run and evaluate it (or resume one with --resume ID)
  status   Show the runs in a database and their progress
  report   Print the leaderboard of a run (or of every run)
  attempts List a run's attempts with their verdicts, reasons and anti-cheat findings (--attempt N: one in full)
  suite    Import a task suite: suite import DIR|FILE.jsonl --db FILE
  import-candidates  Import candidates generated elsewhere and evaluate them: import-candidates PATH --suite S [--model M]
  export   Write a report or export: --format html|pdf|markdown|csv|json|samples-csv|kernelbench --out FILE
  baselines  Import KernelBench's published baseline timings: baselines import DIR
  provider   Register, list and test model providers: provider add|list|test
  model      Register a provider's model and its prices: model add
  serve    Headless engine: work through the queued runs of a database until SIGTERM
  pause, resume, cancel, priority   Control a run (--run N [--model M] [--task T]) another process serves

Options common to all commands:
  --db FILE   the database (created when missing)
  --version   print the version
  --help      this text; "kbstudio-cli <command> --help" for a command's options
)";
}

int main(int argc, char** argv) {
    // A file size limit (ulimit -f) makes writes fail with a message instead of killing us.
    kb::cli::ignoreFileSizeSignal();
    const auto app = kb::cli::createApplication(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("kbstudio-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KBSTUDIO_VERSION));
    QStringList args = QCoreApplication::arguments();
    args.removeFirst();
    if (args.isEmpty() || args.first() == QLatin1String("--help") ||
        args.first() == QLatin1String("-h")) {
        QTextStream(stdout) << kUsage;
        return args.isEmpty() ? 2 : 0;
    }
    if (args.first() == QLatin1String("--version")) {
        QTextStream(stdout) << "kbstudio-cli " << KBSTUDIO_VERSION << '\n';
        return 0;
    }
    const QString command = args.takeFirst();
    if (command == QLatin1String("run"))
        return kb::cli::runCommand(args);
    if (command == QLatin1String("status"))
        return kb::cli::statusCommand(args);
    if (command == QLatin1String("report"))
        return kb::cli::reportCommand(args);
    if (command == QLatin1String("attempts"))
        return kb::cli::attemptsCommand(args);
    if (command == QLatin1String("suite"))
        return kb::cli::suiteCommand(args);
    if (command == QLatin1String("import-candidates"))
        return kb::cli::importCandidatesCommand(args);
    if (command == QLatin1String("export"))
        return kb::cli::exportCommand(args);
    if (command == QLatin1String("baselines"))
        return kb::cli::baselinesCommand(args);
    if (command == QLatin1String("provider"))
        return kb::cli::providerCommand(args);
    if (command == QLatin1String("model"))
        return kb::cli::modelCommand(args);
    if (command == QLatin1String("serve"))
        return kb::cli::serveCommand(args);
    if (QStringList{QStringLiteral("pause"), QStringLiteral("resume"), QStringLiteral("cancel"),
                    QStringLiteral("priority")}
            .contains(command))
        return kb::cli::controlCommand(command, args);
    return kb::cli::fail(
        QStringLiteral("unknown command '%1'; see kbstudio-cli --help").arg(command), 2);
}
