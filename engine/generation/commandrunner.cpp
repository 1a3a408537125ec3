#include "commandrunner.h"

#include "feedback.h"
#include "sandboxpolicy.h"

#include <QFileInfo>
#include <QStandardPaths>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace kb::engine {
namespace {
constexpr int kMaxOutput = 16000;

QString bwrap() {
    return QStandardPaths::findExecutable(QStringLiteral("bwrap"));
}
} // namespace

SandboxProbe probeSandbox() {
    static const SandboxProbe probe = [] {
        SandboxProbe p;
        const QString path = bwrap();
        if (path.isEmpty()) {
            p.message = QStringLiteral("bwrap is not installed");
            return p;
        }
        QProcess proc;
        proc.start(path, {QStringLiteral("--ro-bind"), QStringLiteral("/"), QStringLiteral("/"),
                          QStringLiteral("--dev"), QStringLiteral("/dev"), QStringLiteral("--proc"),
                          QStringLiteral("/proc"), QStringLiteral("--unshare-net"),
                          QStringLiteral("--unshare-pid"), QStringLiteral("--tmpfs"),
                          QStringLiteral("/tmp"), QStringLiteral("--die-with-parent"),
                          QStringLiteral("--"), QStringLiteral("/bin/true")});
        if (!proc.waitForFinished(30000) || proc.exitStatus() != QProcess::NormalExit ||
            proc.exitCode() != 0) {
            proc.kill();
            p.message = QStringLiteral("bwrap failed to start a sandbox: %1")
                            .arg(QString::fromUtf8(proc.readAllStandardError()).trimmed());
            return p;
        }
        p.ok = true;
        p.message = QStringLiteral("bwrap %1").arg(path);
        return p;
    }();
    return probe;
}

CommandRunner::CommandRunner(QString workspace, int timeoutSeconds, QStringList hidden,
                             QObject* parent, bool gpu)
    : QObject(parent)
    , m_workspace(std::move(workspace))
    , m_timeoutSeconds(std::max(1, timeoutSeconds))
    , m_hidden(std::move(hidden))
    , m_gpu(gpu) {
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        killGroup();
    });
}

CommandRunner::~CommandRunner() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        killGroup();
        m_process->waitForFinished(2000);
    }
}

void CommandRunner::run(const QString& command) {
    const SandboxProbe sandbox = probeSandbox();
    if (!sandbox.ok) {
        const ToolOutput out{
            QStringLiteral("run_command is not available: no sandbox (%1)").arg(sandbox.message),
            true};
        QMetaObject::invokeMethod(
            this, [this, out] { Q_EMIT finished(out); }, Qt::QueuedConnection);
        return;
    }
    if (m_process)
        m_process->deleteLater();
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setChildProcessModifier([] {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    });
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    env.insert(QStringLiteral("HOME"), m_workspace);
    env.insert(QStringLiteral("TMPDIR"), QStringLiteral("/tmp"));
    env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    m_process->setProcessEnvironment(env);
    m_process->setWorkingDirectory(m_workspace);
    connect(m_process, &QProcess::finished, this, &CommandRunner::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        m_timer.stop();
        Q_EMIT finished(
            {QStringLiteral("cannot start the sandbox: %1").arg(m_process->errorString()), true});
    });
    // An allow-list (sandboxpolicy.h): the toolchain read-only, the workspace writable, no
    // $HOME, no database, no key store; GPU device nodes only when the run is on the GPU.
    SandboxSpec spec;
    spec.workspace = m_workspace;
    spec.readOnly = defaultExtraReadOnlyPaths();
    spec.hidden = m_hidden;
    spec.gpu = m_gpu;
    QStringList args = sandboxArguments(spec);
    args << QStringLiteral("--") << QStringLiteral("/bin/sh") << QStringLiteral("-c") << command;
    m_timedOut = false;
    m_clock.start();
    m_timer.start(m_timeoutSeconds * 1000);
    m_process->start(bwrap(), args);
}

void CommandRunner::killGroup() {
    if (!m_process)
        return;
    const qint64 pid = m_process->processId();
    if (pid > 0)
        ::kill(-static_cast<pid_t>(pid), SIGKILL);
    m_process->kill();
}

void CommandRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
    m_timer.stop();
    QString text = QString::fromUtf8(m_process->readAll());
    text = trimmedTail(text, kMaxOutput);
    const double seconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
    QString head;
    bool isError = false;
    if (m_timedOut) {
        head = QStringLiteral("[killed after the time limit of %1 s]").arg(m_timeoutSeconds);
        isError = true;
    } else if (status != QProcess::NormalExit) {
        head = QStringLiteral("[the command crashed after %1 s]").arg(seconds, 0, 'f', 1);
        isError = true;
    } else {
        head = QStringLiteral("[exit status %1 after %2 s]").arg(exitCode).arg(seconds, 0, 'f', 1);
        isError = exitCode != 0;
    }
    Q_EMIT finished({head + QLatin1Char('\n') + text, isError});
}

} // namespace kb::engine
