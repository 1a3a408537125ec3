#include "signalwatcher.h"

#include <QSocketNotifier>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace kb::cli {
namespace {
int g_fds[2] = {-1, -1};

void onSignal(int signal) {
    const int saved = errno;
    const unsigned char b = static_cast<unsigned char>(signal);
    if (g_fds[0] >= 0)
        (void)::write(g_fds[0], &b, 1);
    errno = saved;
}

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
} // namespace

SignalWatcher::SignalWatcher(QObject* parent)
    : QObject(parent) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, g_fds) != 0)
        return;
    m_notifier = new QSocketNotifier(g_fds[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SignalWatcher::onReadable);
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int s : kSignals)
        ::sigaction(s, &sa, nullptr);
}

SignalWatcher::~SignalWatcher() {
    for (int s : kSignals)
        std::signal(s, SIG_DFL);
    for (int& fd : g_fds) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
}

void SignalWatcher::onReadable() {
    unsigned char b = 0;
    while (::read(g_fds[1], &b, 1) == 1) {
        const bool first = m_signal == 0;
        m_signal = b;
        if (first)
            Q_EMIT stopRequested(b);
    }
}

QString SignalWatcher::signalName(int signal) {
    switch (signal) {
    case SIGINT:
        return QStringLiteral("SIGINT");
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    case SIGHUP:
        return QStringLiteral("SIGHUP");
    default:
        return QStringLiteral("signal %1").arg(signal);
    }
}

void ignoreFileSizeSignal() {
    std::signal(SIGXFSZ, SIG_IGN);
}

QString fileSizeLimitNote(const QString& message) {
    struct rlimit r {};
    if (::getrlimit(RLIMIT_FSIZE, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return {};
    const QString m = message.toLower();
    if (!m.contains(QLatin1String("disk")) && !m.contains(QLatin1String("i/o")) &&
        !m.contains(QLatin1String("file too large")) && !m.contains(QLatin1String("write")) &&
        !m.contains(QLatin1String("full")))
        return {};
    return QStringLiteral(" (the file size limit of this process, ulimit -f, is %1 bytes; raise it "
                          "and resume)")
        .arg(static_cast<qulonglong>(r.rlim_cur));
}

} // namespace kb::cli
