#include "executor.h"

#include "run/infrafaults.h"

#include <csignal>

namespace kb::engine {

LocalExecutor::LocalExecutor(QObject* parent)
    : Executor(parent)
    , m_process(new HarnessProcess(this)) {
    connect(m_process, &HarnessProcess::finished, this, [this](const HarnessOutcome& h) {
        if (m_killed)
            return;
        ExecOutcome out;
        out.harness = h;
        // A stop signal that the timeout did not send came from outside (the OOM killer, an
        // operator, a shutdown): the worker was lost, not judged. So did the file size limit
        // (ulimit -f) the harness inherited from us. Other signals are the candidate crashing it.
        out.lost =
            h.crashed && !h.timedOut && (isExternalStopSignal(h.exitCode) || h.exitCode == SIGXFSZ);
        if (out.lost && h.exitCode == SIGXFSZ)
            out.harness.error =
                QStringLiteral("the harness exceeded the file size limit (ulimit -f) of the "
                               "process that started it and was stopped by SIGXFSZ");
        // A harness that could not even start is ours to fix, and may be a passing condition.
        if (!h.finished && !h.timedOut && !h.crashed)
            out.lost = true;
        Q_EMIT finished(out);
    });
}

void LocalExecutor::start(const ExecRequest& r) {
    m_killed = false;
    m_process->start({r.phase, QStringLiteral("--request"), QStringLiteral("-"),
                      QStringLiteral("--result"), r.resultPath},
                     r.workDir, r.timeoutMs, r.request);
}

void LocalExecutor::kill() {
    m_killed = true;
    m_process->kill();
}

} // namespace kb::engine
