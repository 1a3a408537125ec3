#pragma once
// The command line of kbstudio, parsed without needing a display (so --version and --help
// work on a server).

#include <QString>
#include <QStringList>

namespace kb::gui {

struct CommandLine {
    QString databasePath;   // --db FILE; empty = the default database
    QString screenshotsDir; // --screenshots DIR: render every page to PNG and exit
    bool version = false;
    bool help = false;
    QString error; // non-empty when the arguments are wrong
};

// arguments includes the program name first, as QCoreApplication::arguments() does.
CommandLine parseCommandLine(const QStringList& arguments);
QString versionText(); // "kbstudio <version>"
QString helpText();

} // namespace kb::gui
