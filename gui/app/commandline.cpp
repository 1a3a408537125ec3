#include "commandline.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::CommandLine", text);
}

struct Parser {
    QCommandLineParser parser;
    QCommandLineOption db{QStringList{QStringLiteral("db")}, tr("Open the database FILE."),
                          QStringLiteral("FILE")};
    QCommandLineOption screenshots{
        QStringList{QStringLiteral("screenshots")},
        tr("Render every page to PNG files in DIR at 1280x800, then exit."), QStringLiteral("DIR")};
    QCommandLineOption version{QStringList{QStringLiteral("v"), QStringLiteral("version")},
                               tr("Print the version and exit.")};
    QCommandLineOption help{QStringList{QStringLiteral("h"), QStringLiteral("help")},
                            tr("Print this help and exit.")};

    Parser() {
        parser.setApplicationDescription(
            tr("KernelBench Studio: browse runs, per-task results, leaderboards and the attempts "
               "behind them.\nWithout --db it opens the default database, the one "
               "'kbstudio-cli run --suite sample --models demo-a,demo-b' writes."));
        parser.addOption(db);
        parser.addOption(screenshots);
        parser.addOption(version);
        parser.addOption(help);
    }
};

} // namespace

CommandLine parseCommandLine(const QStringList& arguments) {
    Parser p;
    CommandLine out;
    if (!p.parser.parse(arguments)) {
        out.error = p.parser.errorText();
        return out;
    }
    if (!p.parser.positionalArguments().isEmpty()) {
        out.error = tr("Unexpected argument: %1 (use --db FILE)")
                        .arg(p.parser.positionalArguments().constFirst());
        return out;
    }
    out.version = p.parser.isSet(p.version);
    out.help = p.parser.isSet(p.help);
    out.databasePath = p.parser.value(p.db);
    out.screenshotsDir = p.parser.value(p.screenshots);
    return out;
}

QString versionText() {
    return QStringLiteral("kbstudio " KBSTUDIO_VERSION);
}

QString helpText() {
    Parser p;
    // helpText() names the program from QCoreApplication, which may not exist yet.
    QString text = p.parser.helpText();
    const qsizetype firstLineEnd = text.indexOf(QLatin1Char('\n'));
    return QStringLiteral("Usage: kbstudio [options]") + text.mid(firstLineEnd);
}

} // namespace kb::gui
