#pragma once
// Command-line entry points of kbstudio-cli. Each returns the process exit code.

#include <QStringList>

class QCommandLineParser;

namespace kb::cli {

int runCommand(const QStringList& args);
int statusCommand(const QStringList& args);
int reportCommand(const QStringList& args);
int suiteCommand(const QStringList& args);
int attemptsCommand(const QStringList& args);

// Prints "error: <message>" to stderr and returns 2 (usage) or 1 (failure).
int fail(const QString& message, int code = 1);
void out(const QString& text);

// Adds --help, parses `kbstudio-cli <command> args`; false (with exitCode set) after printing a
// usage error or the help text.
bool parseCommandLine(QCommandLineParser& parser, const QStringList& args, const QString& command,
                      int& exitCode);
// The --db value, or the default database.
QString databasePath(const QCommandLineParser& parser);

} // namespace kb::cli
