// The harness child process: exit codes, signals and hangs become readable outcomes.
#include "eval/harnessprocess.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

class TestHarnessProcess : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_res;

    engine::HarnessOutcome runScript(const QByteArray& mainPy, int timeoutMs) {
        QDir().mkpath(m_res.path() + QStringLiteral("/harness/kbharness"));
        QFile f(m_res.path() + QStringLiteral("/harness/kbharness/__main__.py"));
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(mainPy);
        f.close();
        qputenv("KBSTUDIO_RESOURCES", m_res.path().toUtf8());
        engine::HarnessProcess p;
        QSignalSpy spy(&p, &engine::HarnessProcess::finished);
        p.start({QStringLiteral("evaluate")}, m_res.path(), timeoutMs);
        if (!spy.wait(timeoutMs + 10000))
            return {};
        return spy.at(0).at(0).value<engine::HarnessOutcome>();
    }

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<engine::HarnessOutcome>(); }

    void cleanExit() {
        const auto o = runScript("import sys\nprint('hello', sys.argv[1:])\n", 20000);
        QVERIFY(o.finished);
        QCOMPARE(o.exitCode, 0);
        QVERIFY(o.error.isEmpty());
        QVERIFY(o.stdoutTail.contains("evaluate"));
    }

    void nonZeroExitCarriesTheLastErrorLine() {
        const auto o = runScript("import sys\nprint('first', file=sys.stderr)\nprint('the reason', "
                                 "file=sys.stderr)\nsys.exit(4)\n",
                                 20000);
        QCOMPARE(o.exitCode, 4);
        QVERIFY2(o.error.contains(QStringLiteral("code 4: the reason")), qPrintable(o.error));
    }

    void segfaultIsNamed() {
        const auto o =
            runScript("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", 20000);
        QVERIFY(o.crashed);
        QVERIFY2(o.error.contains(QStringLiteral("SIGSEGV")), qPrintable(o.error));
    }

    void hangIsKilledWithItsChildren() {
        // The harness starts a grandchild that would outlive it; the whole group must go.
        QTemporaryDir marks;
        const QByteArray script =
            "import subprocess, time, sys\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30); open(\"" +
            marks.path().toUtf8() +
            "/alive\", \"w\")'])\n"
            "open('" +
            marks.path().toUtf8() +
            "/pid', 'w').write(str(p.pid))\n"
            "time.sleep(60)\n";
        QElapsedTimer t;
        t.start();
        const auto o = runScript(script, 1500);
        QVERIFY(o.timedOut);
        QVERIFY(t.elapsed() < 10000);
        QVERIFY2(o.error.contains(QStringLiteral("killed")), qPrintable(o.error));
        QFile pidFile(marks.path() + QStringLiteral("/pid"));
        QVERIFY(pidFile.open(QIODevice::ReadOnly));
        const QByteArray pid = pidFile.readAll().trimmed();
        // The grandchild is gone (or a zombie about to be reaped by init).
        QTRY_VERIFY_WITH_TIMEOUT(
            !QFile::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid)) ||
                QFile(QStringLiteral("/proc/") + QString::fromLatin1(pid) +
                      QStringLiteral("/status"))
                        .open(QIODevice::ReadOnly) == false ||
                [&] {
                    QFile st(QStringLiteral("/proc/") + QString::fromLatin1(pid) +
                             QStringLiteral("/status"));
                    st.open(QIODevice::ReadOnly);
                    return st.readAll().contains("zombie");
                }(),
            5000);
    }

    void missingInterpreterIsReported() {
        qputenv("KBSTUDIO_PYTHON", "/nonexistent/python3");
        engine::HarnessProcess p;
        QSignalSpy spy(&p, &engine::HarnessProcess::finished);
        p.start({}, QDir::tempPath(), 5000);
        QVERIFY(spy.wait(5000));
        qunsetenv("KBSTUDIO_PYTHON");
        const auto o = spy.at(0).at(0).value<engine::HarnessOutcome>();
        QVERIFY2(o.error.contains(QStringLiteral("cannot start the harness")), qPrintable(o.error));
    }
};

QTEST_GUILESS_MAIN(TestHarnessProcess)
#include "tst_harnessprocess.moc"
