#pragma once
// The agent's run_command tool: a shell command in the workspace, inside a bubblewrap sandbox
// (sandboxpolicy.h: the toolchain read-only, only the workspace writable, a private /tmp, no
// $HOME, database or key store, no network, its own PID namespace, the GPU's device nodes when
// the run is on the GPU), killed with everything it started after a time limit. Where
// bubblewrap cannot start a sandbox the tool refuses to run anything, as the harness does.

#include "agentworkspace.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QTimer>

namespace kb::engine {

struct SandboxProbe {
    bool ok = false;
    QString message;
};
// Whether bwrap can start a sandbox without network here; probed once per process.
SandboxProbe probeSandbox();

class CommandRunner : public QObject {
    Q_OBJECT
public:
    // hidden: folders replaced by an empty tmpfs inside the sandbox (the key store's).
    // gpu: the GPU's device nodes are visible (compile, verify and profile by hand).
    CommandRunner(QString workspace, int timeoutSeconds, QStringList hidden = {},
                  QObject* parent = nullptr, bool gpu = false);
    ~CommandRunner() override;
    // Runs one command; `finished` follows, always after run() returned.
    void run(const QString& command);

Q_SIGNALS:
    void finished(const kb::engine::ToolOutput& output);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void killGroup();

    QString m_workspace;
    int m_timeoutSeconds;
    QStringList m_hidden;
    bool m_gpu = false;
    QProcess* m_process = nullptr;
    QTimer m_timer;
    QElapsedTimer m_clock;
    bool m_timedOut = false;
};

} // namespace kb::engine
