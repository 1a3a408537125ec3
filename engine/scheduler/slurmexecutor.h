#pragma once
// One harness call as a Slurm batch job. The request goes into a file only the user can read,
// in a folder only the user can enter; the job script opens it and deletes it before the harness
// starts, so the secret seed never sits in a readable file while a candidate runs. The job is
// tracked with squeue and `scontrol show job` (sacct needs slurmdbd, which a cluster may lack).
// A job that ends without the harness's exit status (node failure, preemption, cancelled by an
// admin, vanished) is reported as a lost worker: the engine queues the work again.
// The attempt folders, the result folder and the harness must be on a file system the nodes share.

#include "executor.h"

#include <QProcess>
#include <QTimer>
#include <functional>

namespace kb::engine {

struct SlurmSettings {
    QString partition;      // empty = the cluster's default partition
    bool gpu = false;       // ask for one GPU per job (--gres=gpu:1)
    bool exclusive = false; // a whole node per job (CPU timing needs the machine to itself)
    int pollMs = 2000;      // squeue interval
    QString extraArgs;      // more sbatch options, space-separated
    QString spoolDir;       // where job folders go (private; on the shared file system)
};

class SlurmExecutor : public Executor {
    Q_OBJECT
public:
    SlurmExecutor(const SlurmSettings& settings, QObject* parent = nullptr);
    ~SlurmExecutor() override;
    void start(const ExecRequest& request) override;
    void kill() override;
    QString jobId() const { return m_jobId; }

    // The sbatch script for a request (exposed for tests).
    static QByteArray jobScript(const ExecRequest& request, const QString& jobDir);

private:
    void onSubmitted(int exitCode);
    void poll();
    void onPolled(int exitCode);
    void collect(const QString& jobState);
    void finish(ExecOutcome outcome);
    void runTool(const QString& tool, const QStringList& args,
                 const std::function<void(int)>& then);

    SlurmSettings m_settings;
    ExecRequest m_request;
    QString m_jobDir;
    QString m_jobId;
    QProcess* m_tool = nullptr;
    QTimer m_pollTimer;
    qint64 m_runningSinceMs = -1;
    qint64 m_submittedMs = 0;
    bool m_done = false;
    bool m_timedOut = false;
    QString m_lastState;
};

} // namespace kb::engine
