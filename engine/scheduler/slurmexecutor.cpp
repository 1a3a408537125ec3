#include "slurmexecutor.h"

#include "core/paths.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kb::engine {
namespace {

QString tool(const QString& name) {
    const QString dir = qEnvironmentVariable("KBSTUDIO_SLURM_BIN");
    return dir.isEmpty() ? name : dir + QLatin1Char('/') + name;
}

QString shellQuote(const QString& s) {
    QString q = s;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}

// Creates a file only the owner can read, refusing to follow an existing name.
bool writePrivate(const QString& path, const QByteArray& bytes, mode_t mode) {
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    qsizetype off = 0;
    while (off < bytes.size()) {
        const ssize_t n =
            ::write(fd, bytes.constData() + off, static_cast<size_t>(bytes.size() - off));
        if (n <= 0) {
            ::close(fd);
            return false;
        }
        off += n;
    }
    return ::close(fd) == 0;
}

QByteArray tailOf(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = f.size();
    if (size > 64 * 1024)
        f.seek(size - 64 * 1024);
    return f.readAll();
}

} // namespace

SlurmExecutor::SlurmExecutor(const SlurmSettings& settings, QObject* parent)
    : Executor(parent)
    , m_settings(settings) {
    m_pollTimer.setSingleShot(true);
    connect(&m_pollTimer, &QTimer::timeout, this, &SlurmExecutor::poll);
}

SlurmExecutor::~SlurmExecutor() {
    if (m_done)
        return;
    if (!m_jobId.isEmpty())
        QProcess::startDetached(tool(QStringLiteral("scancel")), {m_jobId});
    if (!m_jobDir.isEmpty())
        QDir(m_jobDir).removeRecursively();
}

QByteArray SlurmExecutor::jobScript(const ExecRequest& r, const QString& jobDir) {
    const QString dir = shellQuote(jobDir);
    QString s;
    s += QStringLiteral("#!/bin/sh\n");
    s += QStringLiteral("# KernelBench Studio harness call (%1 %2)\n").arg(r.phase, r.label);
    // The request is opened, then its file removed: the harness reads it from standard input.
    s += QStringLiteral("exec 3<%1/request.json || exit 111\n").arg(dir);
    s += QStringLiteral("rm -f %1/request.json\n").arg(dir);
    s += QStringLiteral("cd %1 || exit 112\n").arg(shellQuote(r.workDir));
    s += QStringLiteral("PYTHONPATH=%1${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 "
                        "PYTHONDONTWRITEBYTECODE=1 \\\n")
             .arg(shellQuote(harnessDir()));
    s += QStringLiteral("  %1 -m kbharness %2 --request - --result %3 <&3 3<&- >%4/harness.out "
                        "2>%4/harness.err\n")
             .arg(shellQuote(pythonExecutable()), r.phase, shellQuote(r.resultPath), dir);
    s += QStringLiteral("echo $? >%1/exit.tmp && mv %1/exit.tmp %1/exit\n").arg(dir);
    return s.toUtf8();
}

void SlurmExecutor::runTool(const QString& name, const QStringList& args,
                            const std::function<void(int)>& then) {
    if (m_tool)
        m_tool->deleteLater();
    m_tool = new QProcess(this);
    QProcess* proc = m_tool;
    connect(proc, &QProcess::finished, this, [this, proc, then](int code, QProcess::ExitStatus st) {
        if (proc != m_tool || m_done)
            return;
        then(st == QProcess::NormalExit ? code : -1);
    });
    connect(proc, &QProcess::errorOccurred, this, [this, proc, then](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart && proc == m_tool && !m_done)
            then(-2);
    });
    proc->start(tool(name), args);
}

void SlurmExecutor::start(const ExecRequest& r) {
    m_request = r;
    m_done = false;
    m_timedOut = false;
    m_runningSinceMs = -1;
    m_jobId.clear();
    QDir().mkpath(m_settings.spoolDir);
    ::chmod(QFile::encodeName(m_settings.spoolDir).constData(), 0700);
    m_jobDir = QStringLiteral("%1/%2-%3")
                   .arg(m_settings.spoolDir, r.label,
                        QString::number(QRandomGenerator::system()->generate64(), 16));
    ExecOutcome failed;
    failed.lost = true;
    if (::mkdir(QFile::encodeName(m_jobDir).constData(), 0700) != 0 ||
        !writePrivate(m_jobDir + QStringLiteral("/request.json"), r.request, 0600) ||
        !writePrivate(m_jobDir + QStringLiteral("/job.sh"), jobScript(r, m_jobDir), 0700)) {
        failed.harness.error =
            QStringLiteral("cannot write the Slurm job files under %1").arg(m_jobDir);
        QMetaObject::invokeMethod(
            this, [this, failed] { finish(failed); }, Qt::QueuedConnection);
        return;
    }
    // Slurm's own limit backs up ours (which starts once the job runs).
    const int minutes = std::max(1, (r.timeoutMs + 59999) / 60000) + 2;
    QStringList args{QStringLiteral("--parsable"), QStringLiteral("--job-name=kbstudio-") + r.label,
                     QStringLiteral("--output=") + m_jobDir + QStringLiteral("/slurm.out"),
                     QStringLiteral("--no-requeue"), QStringLiteral("--time=%1").arg(minutes)};
    if (!m_settings.partition.isEmpty())
        args << QStringLiteral("--partition=") + m_settings.partition;
    if (m_settings.gpu)
        args << QStringLiteral("--gres=gpu:1");
    if (m_settings.exclusive)
        args << QStringLiteral("--exclusive");
    args << m_settings.extraArgs.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    args << m_jobDir + QStringLiteral("/job.sh");
    m_submittedMs = nowMs();
    runTool(QStringLiteral("sbatch"), args, [this](int c) { onSubmitted(c); });
}

void SlurmExecutor::onSubmitted(int exitCode) {
    const QString outText = QString::fromUtf8(m_tool->readAllStandardOutput()).trimmed();
    const QString errText = QString::fromUtf8(m_tool->readAllStandardError()).trimmed();
    m_jobId = outText.section(QLatin1Char(';'), 0, 0).trimmed();
    bool numeric = false;
    m_jobId.toLongLong(&numeric);
    if (exitCode != 0 || !numeric) {
        ExecOutcome out;
        out.lost = true;
        out.harness.error = exitCode == -2
                                ? QStringLiteral("cannot run sbatch (is Slurm installed?)")
                                : QStringLiteral("sbatch refused the job: %1")
                                      .arg(errText.isEmpty() ? outText : errText);
        m_jobId.clear();
        finish(out);
        return;
    }
    m_pollTimer.start(std::min(m_settings.pollMs, 500));
}

void SlurmExecutor::poll() {
    runTool(QStringLiteral("squeue"),
            {QStringLiteral("-h"), QStringLiteral("-j"), m_jobId, QStringLiteral("-o"),
             QStringLiteral("%T")},
            [this](int c) { onPolled(c); });
}

void SlurmExecutor::onPolled(int exitCode) {
    const QString state = QString::fromUtf8(m_tool->readAllStandardOutput()).trimmed();
    const QString err = QString::fromUtf8(m_tool->readAllStandardError());
    if (exitCode != 0 && !err.contains(QLatin1String("Invalid job id"))) {
        // slurmctld briefly unreachable: ask again later.
        m_pollTimer.start(m_settings.pollMs);
        return;
    }
    if (!state.isEmpty() && !QStringList{QStringLiteral("COMPLETED"), QStringLiteral("FAILED"),
                                         QStringLiteral("CANCELLED"), QStringLiteral("NODE_FAIL"),
                                         QStringLiteral("PREEMPTED"), QStringLiteral("TIMEOUT"),
                                         QStringLiteral("OUT_OF_MEMORY"),
                                         QStringLiteral("BOOT_FAIL"), QStringLiteral("DEADLINE")}
                                 .contains(state)) {
        m_lastState = state;
        if (state == QLatin1String("RUNNING") && m_runningSinceMs < 0)
            m_runningSinceMs = nowMs();
        if (m_runningSinceMs >= 0 && !m_timedOut &&
            nowMs() - m_runningSinceMs > m_request.timeoutMs) {
            m_timedOut = true;
            QProcess::startDetached(tool(QStringLiteral("scancel")), {m_jobId});
        }
        m_pollTimer.start(m_settings.pollMs);
        return;
    }
    // Gone from the queue (or in a final state): ask scontrol how it ended, while it still knows.
    runTool(QStringLiteral("scontrol"), {QStringLiteral("show"), QStringLiteral("job"), m_jobId},
            [this](int) {
                const QString text = QString::fromUtf8(m_tool->readAllStandardOutput());
                const qsizetype at = text.indexOf(QLatin1String("JobState="));
                collect(at < 0 ? QStringLiteral("gone from the queue")
                               : text.mid(at + 9).section(QLatin1Char(' '), 0, 0).trimmed());
            });
}

void SlurmExecutor::collect(const QString& jobState) {
    ExecOutcome out;
    HarnessOutcome& h = out.harness;
    h.seconds =
        static_cast<double>(nowMs() - (m_runningSinceMs >= 0 ? m_runningSinceMs : m_submittedMs)) /
        1000.0;
    h.stdoutTail = tailOf(m_jobDir + QStringLiteral("/harness.out"));
    h.stderrTail = tailOf(m_jobDir + QStringLiteral("/harness.err"));
    QFile exitFile(m_jobDir + QStringLiteral("/exit"));
    if (m_timedOut) {
        h.timedOut = true;
        h.error = QStringLiteral("did not finish within %1 s and was killed (Slurm job %2)")
                      .arg(m_request.timeoutMs / 1000.0, 0, 'f', 0)
                      .arg(m_jobId);
    } else if (exitFile.open(QIODevice::ReadOnly)) {
        const int code = QString::fromUtf8(exitFile.readAll()).trimmed().toInt();
        if (code > 128) {
            h.crashed = true;
            h.exitCode = code - 128;
            h.error =
                QStringLiteral("the harness process died: %1").arg(describeSignal(h.exitCode));
            // Killed by SIGKILL from outside: the node's OOM killer or an operator.
            out.lost = h.exitCode == 9;
        } else {
            h.finished = true;
            h.exitCode = code;
            if (code != 0) {
                const QString lastLine =
                    QString::fromUtf8(h.stderrTail).trimmed().section(QLatin1Char('\n'), -1);
                h.error =
                    QStringLiteral("the harness exited with code %1%2")
                        .arg(code)
                        .arg(lastLine.isEmpty() ? QString() : QStringLiteral(": ") + lastLine);
            }
        }
    } else {
        out.lost = true;
        h.error = QStringLiteral("Slurm job %1 ended without a result (%2)").arg(m_jobId, jobState);
    }
    finish(out);
}

void SlurmExecutor::finish(ExecOutcome outcome) {
    if (m_done)
        return;
    m_done = true;
    m_pollTimer.stop();
    // The job's folder goes whatever happened: a job that never started still holds the request.
    if (!m_jobDir.isEmpty())
        QDir(m_jobDir).removeRecursively();
    Q_EMIT finished(outcome);
}

void SlurmExecutor::kill() {
    if (m_done)
        return;
    m_done = true;
    m_pollTimer.stop();
    if (!m_jobId.isEmpty())
        QProcess::startDetached(tool(QStringLiteral("scancel")), {m_jobId});
    if (!m_jobDir.isEmpty())
        QDir(m_jobDir).removeRecursively();
}

} // namespace kb::engine
