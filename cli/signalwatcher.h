#pragma once
// SIGINT, SIGTERM and SIGHUP handled alike: the signal handler only writes to a socket, and
// the event loop turns that into stopRequested(signal), so a stop is graceful whichever signal
// asked for it (work in flight queued again, leases released). SIGXFSZ is ignored, so a file
// size limit (ulimit -f) turns into a write error with a message instead of a silent kill.

#include <QObject>
#include <QString>

class QSocketNotifier;

namespace kb::cli {

class SignalWatcher : public QObject {
    Q_OBJECT
public:
    explicit SignalWatcher(QObject* parent = nullptr);
    ~SignalWatcher() override;
    int lastSignal() const { return m_signal; }
    static QString signalName(int signal);

Q_SIGNALS:
    void stopRequested(int signal);

private:
    void onReadable();
    QSocketNotifier* m_notifier = nullptr;
    int m_signal = 0;
};

// Ignores SIGXFSZ for the whole process (called first thing in main).
void ignoreFileSizeSignal();
// " (the file size limit, ulimit -f, is N bytes)" when one is set and the message is about a
// failed write; empty otherwise.
QString fileSizeLimitNote(const QString& message);

} // namespace kb::cli
