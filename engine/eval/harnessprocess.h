#pragma once
// Runs the Python harness as a child process in its own process group, with a hard timeout.
// Whatever happens to the child (crash, hang, garbage output) ends as a HarnessOutcome.

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace kb::engine {

struct HarnessOutcome {
    bool finished = false; // exited on its own (not killed by the timeout)
    bool timedOut = false;
    int exitCode = -1;
    bool crashed = false; // killed by a signal
    QByteArray stdoutTail;
    QByteArray stderrTail;
    double seconds = 0;
    QString error; // readable summary when the process did not produce a result
};

class HarnessProcess : public QObject {
    Q_OBJECT
public:
    explicit HarnessProcess(QObject* parent = nullptr);
    ~HarnessProcess() override;

    // Starts `python -m kbharness <args>` with the harness on PYTHONPATH; stdinData (e.g. a
    // request that holds a secret seed) goes to its standard input, never to a file.
    void start(const QStringList& args, const QString& workDir, int timeoutMs,
               const QByteArray& stdinData = {});
    void kill();
    bool isRunning() const;

Q_SIGNALS:
    void finished(const kb::engine::HarnessOutcome& outcome);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onTimeout();
    void killGroup();

    QProcess m_process;
    QTimer m_timer;
    qint64 m_startNs = 0;
    qint64 m_pid = 0;
    bool m_timedOut = false;
    bool m_done = false;
};

// The readable message for a process that died by a signal.
QString describeSignal(int signal);

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::HarnessOutcome)
