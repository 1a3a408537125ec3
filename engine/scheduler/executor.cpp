#include "executor.h"

#include <csignal>

namespace kb::engine {

LocalExecutor::LocalExecutor(QObject* parent)
    : Executor(parent)
    , m_process(new HarnessProcess(this))
{
    connect(m_process, &HarnessProcess::finished, this, [this](const HarnessOutcome& h) {
        if (m_killed)
            return;
        ExecOutcome out;
        out.harness = h;
        // SIGKILL that the timeout did not send came from outside (the OOM killer, an operator):
        // the worker was lost, not judged. Other signals are the candidate crashing the harness.
        out.lost = h.crashed && !h.timedOut && h.exitCode == SIGKILL;
        // A harness that could not even start is ours to fix, and may be a passing condition.
        if (!h.finished && !h.timedOut && !h.crashed)
            out.lost = true;
        Q_EMIT finished(out);
    });
}

void LocalExecutor::start(const ExecRequest& r)
{
    m_killed = false;
    m_process->start({r.phase, QStringLiteral("--request"), QStringLiteral("-"), QStringLiteral("--result"), r.resultPath},
                     r.workDir, r.timeoutMs, r.request);
}

void LocalExecutor::kill()
{
    m_killed = true;
    m_process->kill();
}

} // namespace kb::engine
