#include "harnessprocess.h"

#include "core/paths.h"

#include <QElapsedTimer>
#include <QProcessEnvironment>
#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kb::engine {
namespace {
constexpr qsizetype kTailBytes = 64 * 1024;

QByteArray tail(const QByteArray& bytes) {
    return bytes.size() > kTailBytes ? bytes.right(kTailBytes) : bytes;
}

qint64 nowNs() {
    static QElapsedTimer clock = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return clock.nsecsElapsed();
}
} // namespace

QString describeSignal(int signal) {
    switch (signal) {
    case SIGSEGV:
        return QStringLiteral("segmentation fault (SIGSEGV)");
    case SIGABRT:
        return QStringLiteral("aborted (SIGABRT)");
    case SIGBUS:
        return QStringLiteral("bus error (SIGBUS)");
    case SIGFPE:
        return QStringLiteral("arithmetic exception (SIGFPE)");
    case SIGILL:
        return QStringLiteral("illegal instruction (SIGILL)");
    case SIGKILL:
        return QStringLiteral("killed (SIGKILL; out of memory?)");
    case SIGTERM:
        return QStringLiteral("terminated (SIGTERM)");
    case SIGINT:
        return QStringLiteral("interrupted (SIGINT)");
    case SIGHUP:
        return QStringLiteral("hung up (SIGHUP)");
    case SIGXFSZ:
        return QStringLiteral("file size limit exceeded (SIGXFSZ)");
    default:
        return QStringLiteral("signal %1 (%2)")
            .arg(signal)
            .arg(QString::fromUtf8(strsignal(signal)));
    }
}

HarnessProcess::HarnessProcess(QObject* parent)
    : QObject(parent) {
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &HarnessProcess::onTimeout);
    connect(&m_process, &QProcess::finished, this, &HarnessProcess::onFinished);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart || m_done)
            return;
        m_done = true;
        m_timer.stop();
        HarnessOutcome out;
        out.error = QStringLiteral("cannot start the harness (%1): %2")
                        .arg(m_process.program(), m_process.errorString());
        Q_EMIT finished(out);
    });
    // Its own process group, so a timeout can kill the harness and everything it started; and
    // it dies with this process, even when this one is killed without a chance to clean up
    // (otherwise it would run on, re-parented to init, beside a resumed run).
    const pid_t self = ::getpid();
    m_process.setChildProcessModifier([self] {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != self) // the engine died before prctl took effect
            ::_exit(127);
    });
}

HarnessProcess::~HarnessProcess() {
    if (isRunning()) {
        m_done = true;
        killGroup();
        m_process.waitForFinished(2000);
    }
}

bool HarnessProcess::isRunning() const {
    return m_process.state() != QProcess::NotRunning;
}

void HarnessProcess::start(const QStringList& args, const QString& workDir, int timeoutMs,
                           const QByteArray& stdinData) {
    m_done = false;
    m_timedOut = false;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString existing = env.value(QStringLiteral("PYTHONPATH"));
    env.insert(QStringLiteral("PYTHONPATH"),
               existing.isEmpty() ? harnessDir() : harnessDir() + QLatin1Char(':') + existing);
    env.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    m_process.setProcessEnvironment(env);
    m_process.setWorkingDirectory(workDir);
    m_process.setProgram(pythonExecutable());
    m_process.setArguments(QStringList{QStringLiteral("-m"), QStringLiteral("kbharness")} + args);
    m_startNs = nowNs();
    m_process.start();
    m_pid = m_process.processId();
    if (!stdinData.isEmpty())
        m_process.write(stdinData);
    m_process.closeWriteChannel();
    m_timer.start(timeoutMs);
}

void HarnessProcess::killGroup() {
    if (m_pid > 0) {
        ::kill(-static_cast<pid_t>(m_pid), SIGKILL);
        ::kill(static_cast<pid_t>(m_pid), SIGKILL);
    }
}

void HarnessProcess::kill() {
    killGroup();
}

void HarnessProcess::onTimeout() {
    m_timedOut = true;
    killGroup();
}

void HarnessProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
    if (m_done)
        return;
    m_done = true;
    m_timer.stop();
    // Children the harness left behind in its group go with it.
    if (m_pid > 0)
        ::kill(-static_cast<pid_t>(m_pid), SIGKILL);
    HarnessOutcome out;
    out.seconds = static_cast<double>(nowNs() - m_startNs) / 1e9;
    out.timedOut = m_timedOut;
    out.crashed = status == QProcess::CrashExit && !m_timedOut;
    out.finished = status == QProcess::NormalExit;
    out.exitCode = exitCode;
    out.stdoutTail = tail(m_process.readAllStandardOutput());
    out.stderrTail = tail(m_process.readAllStandardError());
    if (m_timedOut) {
        out.error = QStringLiteral("did not finish within %1 s and was killed")
                        .arg(m_timer.interval() / 1000.0, 0, 'f', 0);
    } else if (out.crashed) {
        // QProcess reports the signal number as the exit code of a crash.
        out.error = QStringLiteral("the harness process died: %1").arg(describeSignal(exitCode));
    } else if (exitCode != 0) {
        const QString lastLine =
            QString::fromUtf8(out.stderrTail).trimmed().section(QLatin1Char('\n'), -1);
        out.error = QStringLiteral("the harness exited with code %1%2")
                        .arg(exitCode)
                        .arg(lastLine.isEmpty() ? QString() : QStringLiteral(": ") + lastLine);
    }
    Q_EMIT finished(out);
}

} // namespace kb::engine
