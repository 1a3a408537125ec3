#include "exportcommand.h"

#include "clioptions.h"
#include "core/error.h"
#include "core/paths.h"
#include "report/baselineimport.h"
#include "report/exporter.h"
#include "report/jsonexport.h"
#include "report/kernelbenchexport.h"
#ifdef KBSTUDIO_CLI_PDF
#include "report/pdfreport.h"
#endif

#include "db/database.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#ifdef KBSTUDIO_CLI_PDF
#include <QGuiApplication>
#endif
#include <QTextStream>
#include <cstring>

namespace kb::cli {

namespace {

QStringList list(const QCommandLineParser& p, const QString& name) {
    QStringList items;
    for (const auto& item : p.value(name).split(QLatin1Char(','), Qt::SkipEmptyParts))
        items << item.trimmed();
    return items;
}

bool writeStdout(const QByteArray& bytes) {
    QFile stdoutFile;
    return stdoutFile.open(stdout, QIODevice::WriteOnly) && stdoutFile.write(bytes) == bytes.size();
}

int exportJson(db::Connection& conn, const report::ExportFilter& filter, const QString& outPath) {
    qint64 written = 0;
    if (outPath == QLatin1String("-")) {
        QFile stdoutFile;
        if (!stdoutFile.open(stdout, QIODevice::WriteOnly))
            return fail(QStringLiteral("cannot write to stdout"));
        written = report::writeJsonExport(conn, filter, stdoutFile);
        return stdoutFile.flush() ? 0 : fail(QStringLiteral("cannot write to stdout"));
    }
    // All or nothing: a failed export leaves no half-written file (and an older one intact).
    QSaveFile file(outPath);
    if (!file.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("cannot write '%1': %2").arg(outPath, file.errorString()));
    written = report::writeJsonExport(conn, filter, file);
    if (!file.commit())
        return fail(QStringLiteral("cannot write '%1': %2").arg(outPath, file.errorString()));
    out(QStringLiteral("wrote json to %1 (%2 attempts)\n").arg(outPath).arg(written));
    return 0;
}

} // namespace

int exportCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Export results: the HTML or PDF report, the Markdown leaderboard, attempts "
        "as CSV or JSON, the leaderboard as CSV, timing samples as CSV, or KernelBench "
        "eval_results.json.\n"
        "Every format carries the run settings (precision, TF32, compile mode, prompt template)."));
    p.addOption(
        {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")});
    p.addOption(
        {QStringLiteral("format"),
         QStringLiteral("One of: %1.").arg(report::exportFormatNames().join(QStringLiteral(", "))),
         QStringLiteral("FORMAT")});
    p.addOption({QStringLiteral("out"),
                 QStringLiteral("Output file ('-' writes text formats to stdout)."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("run"), QStringLiteral("Run id (default: every run)."),
                 QStringLiteral("ID"), QStringLiteral("0")});
    p.addOption({QStringLiteral("models"),
                 QStringLiteral("Comma-separated model names (default: all)."),
                 QStringLiteral("LIST")});
    p.addOption({QStringLiteral("levels"), QStringLiteral("Comma-separated levels (default: all)."),
                 QStringLiteral("LIST")});
    p.addOption({QStringLiteral("verdicts"),
                 QStringLiteral("Comma-separated verdicts of the attempt rows (default: all)."),
                 QStringLiteral("LIST")});
    p.addOption(
        {QStringLiteral("compare"),
         QStringLiteral("Two models, A,B: add their paired comparison to the HTML, PDF and "
                        "Markdown reports (default: the two --models when exactly two are given)."),
         QStringLiteral("A,B")});
    p.addOption({QStringLiteral("title"), QStringLiteral("Title of the HTML/PDF report."),
                 QStringLiteral("TEXT")});
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("export"), code))
        return code;

    const auto format = report::exportFormatFromName(p.value(QStringLiteral("format")));
    if (!format) {
        return fail(QStringLiteral("--format must be one of %1")
                        .arg(report::exportFormatNames().join(QStringLiteral(", "))),
                    2);
    }
    const QString outPath = p.value(QStringLiteral("out"));
    if (outPath.isEmpty())
        return fail(QStringLiteral("--out FILE is required ('-' for stdout)"), 2);
    if (outPath == QLatin1String("-") && *format == report::ExportFormat::Pdf)
        return fail(QStringLiteral("the PDF report cannot go to stdout; give --out FILE"), 2);

    report::ExportFilter filter;
    bool ok = false;
    filter.runId = p.value(QStringLiteral("run")).toLongLong(&ok);
    if (!ok || filter.runId < 0)
        return fail(QStringLiteral("--run must be a run id (see kbstudio-cli status)"), 2);
    filter.models = list(p, QStringLiteral("models"));
    for (const auto& l : list(p, QStringLiteral("levels"))) {
        const int level = l.toInt(&ok);
        if (!ok)
            return fail(
                QStringLiteral("--levels takes numbers, e.g. --levels 1,2 (got '%1')").arg(l), 2);
        filter.levels << level;
    }
    filter.verdicts = list(p, QStringLiteral("verdicts"));
    filter.compare = list(p, QStringLiteral("compare"));
    if (p.isSet(QStringLiteral("compare")) && filter.compare.size() != 2)
        return fail(QStringLiteral("--compare takes two models, e.g. --compare model-a,model-b"),
                    2);

    const QString dbFile = databasePath(p);
    if (!QFileInfo::exists(dbFile))
        return fail(QStringLiteral("database '%1' does not exist").arg(dbFile));
    try {
        db::Database database(dbFile.toStdString(), db::Database::Access::ReadOnly);
        if (*format == report::ExportFormat::Json) {
            // Streamed: a million attempts are never held in memory at once.
            return exportJson(database.connection(), filter, outPath);
        }
        const auto data =
            report::loadReportData(database.connection(), filter, report::loadOptionsFor(*format));
        report::HtmlOptions html;
        if (p.isSet(QStringLiteral("title")))
            html.title = p.value(QStringLiteral("title"));
        html.generatedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);

        QString error;
        if (*format == report::ExportFormat::Pdf) {
#ifdef KBSTUDIO_CLI_PDF
            error = report::writePdfReport(data, outPath, html);
#else
            error = QStringLiteral(
                "this kbstudio-cli was built without PDF support (KBSTUDIO_CLI_PDF=OFF)");
#endif
        } else if (*format == report::ExportFormat::KernelBench &&
                   (outPath.endsWith(QLatin1Char('/')) || QFileInfo(outPath).isDir())) {
            // Every model and level: one KernelBench run folder each (docs/exports.md).
            QStringList written;
            error = report::writeKernelBenchRuns(outPath, data, &written);
            if (error.isEmpty()) {
                out(QStringLiteral("wrote kernelbench run folders to %1 (%2 files, %3 attempts)\n")
                        .arg(outPath)
                        .arg(written.size())
                        .arg(data.attempts.size()));
                return 0;
            }
        } else {
            const QByteArray bytes = report::renderExport(*format, data, html);
            if (outPath == QLatin1String("-"))
                error = writeStdout(bytes) ? QString() : QStringLiteral("cannot write to stdout");
            else
                error = report::writeFileAtomically(outPath, bytes);
        }
        if (!error.isEmpty())
            return fail(error);
        if (outPath != QLatin1String("-")) {
            out(QStringLiteral("wrote %1 to %2 (%3 attempts)\n")
                    .arg(report::exportFormatName(*format), outPath)
                    .arg(data.attempts.size()));
        }
        return 0;
    } catch (const engine::Error& e) {
        return fail(e.message());
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

int baselinesCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("baselines import DIR: store KernelBench's published baseline timings "
                       "(a GPU folder with baseline_time_torch*.json, or a folder of them)."));
    p.addOption(
        {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("problems"),
                 QStringLiteral("KernelBench problem folder whose sources identify the tasks "
                                "(default: the tasks in the database)."),
                 QStringLiteral("DIR")});
    p.addPositionalArgument(QStringLiteral("action"), QStringLiteral("import"));
    p.addPositionalArgument(QStringLiteral("dir"), QStringLiteral("baseline folder"));
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("baselines"), code))
        return code;
    const auto pos = p.positionalArguments();
    if (pos.size() != 2 || pos[0] != QLatin1String("import"))
        return fail(
            QStringLiteral("usage: kbstudio-cli baselines import DIR [--problems DIR] [--db FILE]"),
            2);
    try {
        db::Database database(databasePath(p).toStdString());
        report::BaselineImportOptions options;
        options.problemsDir = p.value(QStringLiteral("problems"));
        const auto r = report::importPublishedBaselines(database.connection(), pos[1], options);
        out(QStringLiteral("stored %1 baselines from %2 files (devices: %3)\n")
                .arg(r.stored)
                .arg(r.files)
                .arg(r.devices.join(QStringLiteral(", "))));
        if (r.unmatched > 0) {
            out(QStringLiteral("%1 of %2 entries have no matching task, e.g. %3\n")
                    .arg(r.unmatched)
                    .arg(r.entries)
                    .arg(r.unmatchedNames.mid(0, 3).join(QStringLiteral(", "))));
        }
        if (r.stored == 0 && r.entries > 0) {
            return fail(
                QStringLiteral("no entry matched a task: import the KernelBench problems first "
                               "(kbstudio-cli suite import DIR) or pass --problems DIR"));
        }
        return 0;
    } catch (const engine::Error& e) {
        return fail(e.message());
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

std::unique_ptr<QCoreApplication> createApplication(int& argc, char** argv) {
    bool pdf = false;
    if (argc > 1 && std::strcmp(argv[1], "export") == 0) {
        for (int i = 2; i < argc; ++i) {
            if (std::strcmp(argv[i], "--format=pdf") == 0 ||
                (std::strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
                 std::strcmp(argv[i + 1], "pdf") == 0))
                pdf = true;
        }
    }
#ifdef KBSTUDIO_CLI_PDF
    if (pdf) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        return std::make_unique<QGuiApplication>(argc, argv);
    }
#endif
    Q_UNUSED(pdf)
    return std::make_unique<QCoreApplication>(argc, argv);
}

} // namespace kb::cli
