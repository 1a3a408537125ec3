// The agent's run_command sandbox from the inside, as a hostile agent would try it: read a
// secret in $HOME, the database, the key store, write outside the workspace, reach the network.
// The files are made outside /tmp (the sandbox's /tmp is private anyway), next to where a
// database really lives, so only the sandbox's own rules can keep them out.
#include "generation/commandrunner.h"
#include "generation/sandboxpolicy.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {
const QByteArray kSecret = "home-secret-5b1f0c7e";
const QByteArray kDbSecret = "database-secret-9d2a41";
const QByteArray kKeySecret = "sk-keystore-secret-77aa";

bool writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}
} // namespace

class TestSandbox : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<engine::ToolOutput>(); }

    void theCommandSeesNoHomeNoDatabaseNoKeys() {
        const engine::SandboxProbe probe = engine::probeSandbox();
        if (!probe.ok)
            QFAIL(qPrintable(
                QStringLiteral("bubblewrap cannot start a sandbox here: %1").arg(probe.message)));
        // Under the build tree, not /tmp: visible to any process that reads the whole disk.
        QTemporaryDir root(QDir::currentPath() + QStringLiteral("/sandbox-XXXXXX"));
        QVERIFY(root.isValid());
        const QString home = root.filePath(QStringLiteral("home"));
        const QString db = root.filePath(QStringLiteral("data/results.kbdb"));
        const QString keys = root.filePath(QStringLiteral("config/kbstudio/keys.json"));
        const QString workspace =
            root.filePath(QStringLiteral("data/results.work/run-1/attempt-1/workspace"));
        QVERIFY(writeFile(home + QStringLiteral("/.secret"), kSecret));
        QVERIFY(writeFile(db, kDbSecret));
        QVERIFY(writeFile(keys, kKeySecret));
        QVERIFY(writeFile(workspace + QStringLiteral("/model.py"), "class Model: pass\n"));
        const QByteArray oldHome = qgetenv("HOME");
        qputenv("HOME", home.toUtf8());

        engine::CommandRunner runner(workspace, 30, {QFileInfo(keys).absolutePath(), home});
        QSignalSpy done(&runner, &engine::CommandRunner::finished);
        const QString command =
            QStringLiteral("cat %1/.secret; cat %2; cat %3; ls %1; touch %4/escape; "
                           "echo written > inside.txt; cat model.py; "
                           "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 80), "
                           "2)' 2>&1 | tail -1; "
                           "echo END")
                .arg(home, db, keys, root.filePath(QStringLiteral("data")));
        runner.run(command);
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 30000);
        qputenv("HOME", oldHome);
        const QString out = done.at(0).at(0).value<engine::ToolOutput>().text;
        QVERIFY2(out.contains(QStringLiteral("END")), qPrintable(out));
        QVERIFY2(!out.contains(QString::fromLatin1(kSecret)), qPrintable(out));
        QVERIFY2(!out.contains(QString::fromLatin1(kDbSecret)), qPrintable(out));
        QVERIFY2(!out.contains(QString::fromLatin1(kKeySecret)), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("class Model")), qPrintable(out)); // its own workspace
        QVERIFY(!QFile::exists(root.filePath(QStringLiteral("data/escape"))));
        QVERIFY(QFile::exists(workspace + QStringLiteral("/inside.txt")));
        QVERIFY2(out.contains(QStringLiteral("Network is unreachable")) ||
                     out.contains(QStringLiteral("OSError")),
                 qPrintable(out));
    }

    void gpuNodesOnlyWhenAskedFor() {
        engine::SandboxSpec spec;
        spec.workspace = QDir::currentPath();
        const QStringList cpu = engine::sandboxArguments(spec);
        QVERIFY(!cpu.contains(QStringLiteral("--dev-bind")));
        QVERIFY(!cpu.contains(QStringLiteral("/sys")));
        QVERIFY(cpu.contains(QStringLiteral("--unshare-net")));
        // Never the whole root: only chosen folders are bound.
        for (int i = 0; i + 2 < cpu.size(); ++i)
            if (cpu.at(i) == QLatin1String("--ro-bind") || cpu.at(i) == QLatin1String("--bind"))
                QVERIFY2(cpu.at(i + 1) != QLatin1String("/"),
                         "the sandbox binds the whole file system");
        spec.gpu = true;
        const QStringList gpu = engine::sandboxArguments(spec);
        QVERIFY(gpu.contains(QStringLiteral("/sys")));
        QVERIFY(gpu.contains(QStringLiteral("--unshare-net")));
        if (QFileInfo::exists(QStringLiteral("/dev/nvidiactl")))
            QVERIFY(gpu.contains(QStringLiteral("/dev/nvidiactl")));
    }
};

QTEST_GUILESS_MAIN(TestSandbox)
#include "tst_sandbox.moc"
