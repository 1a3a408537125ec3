// kbstudio: the KernelBench Studio desktop application.

#include "app/commandline.h"
#include "app/mainwindow.h"
#include "app/screenshotrenderer.h"
#include "core/paths.h"

#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QTextStream>
#include <cstdio>

int main(int argc, char* argv[]) {
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    // --version and --help must work without a display.
    const kb::gui::CommandLine options = kb::gui::parseCommandLine(arguments);
    if (!options.error.isEmpty()) {
        QTextStream(stderr) << "kbstudio: " << options.error << "\n";
        return 2;
    }
    if (options.version) {
        QTextStream(stdout) << kb::gui::versionText() << "\n";
        return 0;
    }
    if (options.help) {
        QTextStream(stdout) << kb::gui::helpText();
        return 0;
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KernelBenchStudio"));
    QApplication::setApplicationName(QStringLiteral("kbstudio"));
    QApplication::setApplicationDisplayName(QStringLiteral("KernelBench Studio"));
    QApplication::setApplicationVersion(QStringLiteral(KBSTUDIO_VERSION));

    const QString database =
        options.databasePath.isEmpty() ? kb::engine::defaultDatabasePath() : options.databasePath;
    // Screenshots are reproducible: no saved geometry or filters are read, and the user's
    // settings are not touched.
    QTemporaryDir screenshotSettings;
    if (!options.screenshotsDir.isEmpty())
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                           screenshotSettings.path());
    kb::gui::MainWindow window;
    if (!options.screenshotsDir.isEmpty()) {
        kb::gui::ScreenshotRenderer renderer(&window, options.screenshotsDir);
        int exitCode = 0;
        QObject::connect(&renderer, &kb::gui::ScreenshotRenderer::finished, &app,
                         [&exitCode](bool ok, const QString& message) {
                             QTextStream(ok ? stdout : stderr) << message << "\n";
                             exitCode = ok ? 0 : 1;
                             QCoreApplication::exit(exitCode);
                         });
        window.openDatabase(database);
        renderer.start();
        QApplication::exec();
        return exitCode;
    }
    window.restoreSettings();
    window.show();
    window.openDatabase(database);
    return QApplication::exec();
}
