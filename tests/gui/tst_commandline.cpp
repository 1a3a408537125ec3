// The command line: parsing, and --version/--help working without any display.

#include "app/commandline.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

using namespace kb;

class TestCommandLine : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parses_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("db");
        QTest::addColumn<QString>("shots");
        QTest::addColumn<bool>("version");
        QTest::addColumn<bool>("error");
        auto args = [](std::initializer_list<const char*> items) {
            QStringList out{QStringLiteral("kbstudio")};
            for (const char* item : items)
                out << QString::fromUtf8(item);
            return out;
        };
        QTest::newRow("nothing") << args({}) << ""
                                 << "" << false << false;
        QTest::newRow("db") << args({"--db", "x.kbdb"}) << "x.kbdb"
                            << "" << false << false;
        QTest::newRow("db=") << args({"--db=y.kbdb"}) << "y.kbdb"
                             << "" << false << false;
        QTest::newRow("screenshots") << args({"--db", "x", "--screenshots", "out"}) << "x"
                                     << "out" << false << false;
        QTest::newRow("version") << args({"--version"}) << ""
                                 << "" << true << false;
        QTest::newRow("-v") << args({"-v"}) << ""
                            << "" << true << false;
        QTest::newRow("unknown option") << args({"--frobnicate"}) << ""
                                        << "" << false << true;
        QTest::newRow("positional") << args({"x.kbdb"}) << ""
                                    << "" << false << true;
        QTest::newRow("db without value") << args({"--db"}) << ""
                                          << "" << false << true;
    }

    void parses() {
        QFETCH(QStringList, args);
        QFETCH(QString, db);
        QFETCH(QString, shots);
        QFETCH(bool, version);
        QFETCH(bool, error);
        const gui::CommandLine cl = gui::parseCommandLine(args);
        QCOMPARE(!cl.error.isEmpty(), error);
        if (error)
            return;
        QCOMPARE(cl.databasePath, db);
        QCOMPARE(cl.screenshotsDir, shots);
        QCOMPARE(cl.version, version);
    }

    void versionAndHelpNeedNoDisplay_data() {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("expected");
        QTest::newRow("--version")
            << "--version" << QString(gui::versionText() + QLatin1Char('\n'));
        QTest::newRow("--help") << "--help"
                                << "--screenshots";
    }

    void versionAndHelpNeedNoDisplay() {
        QFETCH(QString, option);
        QFETCH(QString, expected);
        QCOMPARE(gui::versionText(), QStringLiteral("kbstudio " KBSTUDIO_VERSION));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        // a platform that cannot start: the program must not need one for these
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("no-such-platform"));
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(KBSTUDIO_EXECUTABLE), {option});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        if (option == QLatin1String("--version"))
            QCOMPARE(out, expected);
        else
            QVERIFY2(out.contains(expected), qPrintable(out));
    }

    void badArgumentsExitWithAnError() {
        QProcess process;
        process.start(QStringLiteral(KBSTUDIO_EXECUTABLE), {QStringLiteral("--frobnicate")});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(QString::fromUtf8(process.readAllStandardError())
                    .contains(QStringLiteral("frobnicate")));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
