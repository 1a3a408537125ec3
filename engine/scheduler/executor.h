#pragma once
// Where one harness call (a build or an evaluation of one attempt) runs: a child process on this
// host, or a batch job on a cluster. The engine hands over a request and gets one outcome back,
// whatever happened on the way.

#include "eval/harnessprocess.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QString>

namespace kb::engine {

struct ExecRequest {
    QString phase;      // build or evaluate
    QString workDir;    // the attempt's folder (task.py, candidate.py)
    QString resultPath; // private file the harness writes its result to
    QByteArray request; // the request JSON (holds the secret seed: never world-readable)
    int timeoutMs = 0;
    int gpuIndex = 0;
    QString label; // for job names and logs, e.g. "attempt-12"
};

struct ExecOutcome {
    HarnessOutcome harness;
    // The worker was lost before it could report (killed from outside, node failure, preemption,
    // a batch job that vanished): the instrument's fault, worth another try.
    bool lost = false;
};

class Executor : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual void start(const ExecRequest& request) = 0;
    // Stops the call; no finished() follows.
    virtual void kill() = 0;

Q_SIGNALS:
    void finished(const kb::engine::ExecOutcome& outcome);
};

// A harness child process on this host (HarnessProcess).
class LocalExecutor : public Executor {
    Q_OBJECT
public:
    explicit LocalExecutor(QObject* parent = nullptr);
    void start(const ExecRequest& request) override;
    void kill() override;

private:
    HarnessProcess* m_process;
    bool m_killed = false;
};

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::ExecOutcome)
