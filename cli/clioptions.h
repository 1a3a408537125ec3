#pragma once
// Command-line entry points of kbstudio-cli. Each returns the process exit code.

#include <QStringList>

namespace kb::cli {

int runCommand(const QStringList& args);
int statusCommand(const QStringList& args);
int reportCommand(const QStringList& args);
int suiteCommand(const QStringList& args);

// Prints "error: <message>" to stderr and returns 2 (usage) or 1 (failure).
int fail(const QString& message, int code = 1);
void out(const QString& text);

} // namespace kb::cli
