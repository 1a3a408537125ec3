#pragma once
// kbstudio-cli export and kbstudio-cli baselines. Each returns the process exit code.

#include <QCoreApplication>
#include <QStringList>
#include <memory>

namespace kb::cli {

// export --format html|pdf|markdown|csv|json|samples-csv|kernelbench --out FILE
//        [--run ID] [--models LIST] [--levels LIST] [--verdicts LIST] [--title TEXT] [--db FILE]
int exportCommand(const QStringList& args);

// baselines import DIR [--problems DIR] [--db FILE]
int baselinesCommand(const QStringList& args);

// The application object of kbstudio-cli: a QGuiApplication on the offscreen platform (unless
// QT_QPA_PLATFORM says otherwise) when the command line writes a PDF, because laying out text
// needs Qt GUI's fonts; a QCoreApplication for everything else, so servers need no display.
std::unique_ptr<QCoreApplication> createApplication(int& argc, char** argv);

} // namespace kb::cli
