// kbstudio-cli suite: import a suite folder and validate its tasks' references.

#include "clioptions.h"
#include "core/error.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "suites/suiteimporter.h"
#include "suites/suiteloader.h"
#include "suites/taskvalidator.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

namespace kb::cli {

namespace {

QCommandLineOption dbOption() {
    return {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")};
}

// Runs the validator over the tasks and prints one line per task; returns the number of
// tasks whose reference could not run.
int validateTasks(db::Database& database, const std::vector<db::TaskRow>& tasks,
                  const QString& device, double timeoutSeconds) {
    engine::TaskValidator validator(database, device);
    validator.setTimeoutSeconds(timeoutSeconds);
    int failed = 0;
    int done = 0;
    const int total = static_cast<int>(tasks.size());
    QObject::connect(&validator, &engine::TaskValidator::taskValidated,
                     [&](const engine::TaskValidationResult& r) {
                         ++done;
                         QString line =
                             QStringLiteral("[%1/%2] %3: ").arg(done).arg(total).arg(r.taskKey);
                         if (!r.ok) {
                             ++failed;
                             line += QStringLiteral("cannot validate: ") + r.error;
                         } else if (r.flags.isEmpty()) {
                             line += QStringLiteral("ok");
                         } else {
                             line +=
                                 QStringLiteral("FLAGGED ") + r.flags.join(QStringLiteral(", "));
                             for (const auto& m : r.messages)
                                 line += QStringLiteral("\n    ") + m;
                         }
                         out(line + QLatin1Char('\n'));
                     });
    bool finished = false;
    QObject::connect(
        &validator, &engine::TaskValidator::finished, [&](int validated, int flagged, int bad) {
            out(QStringLiteral(
                    "validated %1 task(s) on %2: %3 flagged (judged strictly), %4 could not run\n")
                    .arg(validated)
                    .arg(device)
                    .arg(flagged)
                    .arg(bad));
            finished = true;
            QCoreApplication::exit(0);
        });
    validator.start(tasks);
    if (!finished)
        QCoreApplication::exec();
    return failed;
}

} // namespace

int suiteCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "suite import DIR|FILE: import a suite folder (suite.json or KernelBench levelN/), or a "
        "JSON-lines\n"
        "file of KernelBench's Hugging Face dataset ({\"name\", \"level\", \"problem_id\", "
        "\"code\"} per line).\n"
        "suite validate NAME: run every task's reference once and flag weak tasks (output below "
        "the\n"
        "tolerance, near-constant, insensitive to the input or the weights, nondeterministic).\n"
        "suite flagged NAME: list the flagged tasks."));
    p.addOption(dbOption());
    p.addOption({QStringLiteral("name"), QStringLiteral("Suite name (default: from the folder)."),
                 QStringLiteral("NAME")});
    p.addOption({QStringLiteral("skip-invalid"),
                 QStringLiteral("Import the usable tasks even when some files are not.")});
    p.addOption({QStringLiteral("validate"),
                 QStringLiteral("After importing, validate every task (see 'suite validate').")});
    p.addOption({QStringLiteral("device"),
                 QStringLiteral("Where to run the references: cpu or cuda (default cpu)."),
                 QStringLiteral("DEVICE"), QStringLiteral("cpu")});
    p.addOption({QStringLiteral("timeout"), QStringLiteral("Seconds per task (default 600)."),
                 QStringLiteral("S"), QStringLiteral("600")});
    p.addPositionalArgument(QStringLiteral("action"),
                            QStringLiteral("import, validate or flagged"));
    p.addPositionalArgument(
        QStringLiteral("target"),
        QStringLiteral("suite folder or JSON-lines file (import), or suite name"));
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("suite"), code))
        return code;
    const auto pos = p.positionalArguments();
    const QString usage = QStringLiteral("usage: kbstudio-cli suite import DIR|FILE.jsonl "
                                         "[--validate] | validate NAME | flagged NAME "
                                         "[--db FILE] [--device cpu|cuda]");
    if (pos.size() != 2)
        return fail(usage, 2);
    const QString device = p.value(QStringLiteral("device"));
    if (device != QLatin1String("cpu") && !device.startsWith(QLatin1String("cuda")))
        return fail(QStringLiteral("--device must be cpu or cuda"), 2);
    bool okTimeout = false;
    const double timeout = p.value(QStringLiteral("timeout")).toDouble(&okTimeout);
    if (!okTimeout || timeout <= 0)
        return fail(QStringLiteral("--timeout must be a positive number of seconds"), 2);
    try {
        if (pos[0] == QLatin1String("import")) {
            const auto suite = engine::SuiteLoader::load(pos[1], p.value(QStringLiteral("name")));
            if (!suite.problems.isEmpty()) {
                for (const auto& problem : suite.problems)
                    QTextStream(stderr) << "problem: " << problem << '\n';
                if (!p.isSet(QStringLiteral("skip-invalid")))
                    return fail(
                        QStringLiteral("%1 task file(s) cannot be used; nothing was imported "
                                       "(--skip-invalid imports the other %2)")
                            .arg(suite.problems.size())
                            .arg(suite.tasks.size()));
            }
            // Opened only now: a refused import leaves no database behind.
            db::Database database(databasePath(p).toStdString());
            db::CatalogRepository catalog(database.connection());
            const auto imported = engine::importSuite(database.connection(), suite);
            QString summary = QStringLiteral("imported suite '%1': %2 tasks")
                                  .arg(imported.name)
                                  .arg(imported.tasks);
            if (imported.added != imported.tasks || imported.updated || imported.versioned) {
                summary += QStringLiteral(" (%1 new, %2 changed in place, %3 unchanged)")
                               .arg(imported.added)
                               .arg(imported.updated)
                               .arg(imported.tasks - imported.added - imported.updated -
                                    imported.versioned);
            }
            if (imported.versioned) {
                summary +=
                    QStringLiteral(
                        "; %1 changed after a run used them: %1 new version(s), the runs keep "
                        "the version they evaluated")
                        .arg(imported.versioned);
            }
            if (imported.name != suite.name) {
                summary +=
                    QStringLiteral(
                        "; a suite of yours is named '%1', so the built-in one is stored as '%2'")
                        .arg(suite.name, imported.name);
            }
            out(summary + QLatin1Char('\n'));
            if (!p.isSet(QStringLiteral("validate")))
                return 0;
            return validateTasks(database, catalog.tasks(imported.suiteId), device, timeout) == 0
                       ? 0
                       : 1;
        }
        db::Database database(databasePath(p).toStdString());
        db::CatalogRepository catalog(database.connection());
        const auto suite = catalog.suiteByName(pos[1].toStdString());
        if (!suite)
            return fail(QStringLiteral("no suite named '%1'").arg(pos[1]));
        if (pos[0] == QLatin1String("validate"))
            return validateTasks(database, catalog.tasks(suite->id), device, timeout) == 0 ? 0 : 1;
        if (pos[0] == QLatin1String("flagged")) {
            const auto tasks = catalog.tasks(suite->id);
            for (const auto& v : catalog.flaggedTasks(suite->id)) {
                QString key;
                for (const auto& t : tasks)
                    if (t.id == v.taskId)
                        key = QString::fromStdString(t.key);
                out(QStringLiteral("%1 (%2): %3\n")
                        .arg(key, QString::fromStdString(v.device),
                             QString::fromStdString(v.flagsJson)));
            }
            return 0;
        }
        return fail(usage, 2);
    } catch (const engine::Error& e) {
        return fail(e.message());
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

} // namespace kb::cli
