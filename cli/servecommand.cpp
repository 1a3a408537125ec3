#include "servecommand.h"

#include "clioptions.h"
#include "core/error.h"
#include "db/leaserepository.h"
#include "run/enginelease.h"
#include "run/runengine.h"
#include "scheduler/enginepresence.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QSocketNotifier>
#include <QTextStream>
#include <QTimer>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace kb::cli {
namespace {

int g_signalFd[2] = {-1, -1};

void onSignal(int sig) {
    const char c = static_cast<char>(sig);
    [[maybe_unused]] const auto n = ::write(g_signalFd[0], &c, 1);
}

void say(const QString& text) {
    QTextStream(stdout) << QDateTime::currentDateTimeUtc().toString(Qt::ISODate) << "  " << text
                        << '\n'
                        << Qt::flush;
}

// Picks the next run, works on it, and moves on when it ends or is paused.
class Server : public QObject {
public:
    Server(engine::RunEngine& engine, double pollSeconds, bool exitWhenIdle, double leaseSeconds)
        : m_engine(engine)
        , m_pollSeconds(pollSeconds)
        , m_exitWhenIdle(exitWhenIdle)
        , m_leaseSeconds(leaseSeconds) {
        m_idle.setSingleShot(true);
        connect(&m_idle, &QTimer::timeout, this, &Server::next);
        connect(&m_engine, &engine::RunEngine::runFinished, this,
                [this](qint64 id, const QString& status, const QString& message) {
                    say(QStringLiteral("run %1 %2%3")
                            .arg(id)
                            .arg(status,
                                 message.isEmpty() ? QString() : QStringLiteral(": ") + message));
                    QTimer::singleShot(0, this, &Server::next);
                });
        connect(&m_engine, &engine::RunEngine::paused, this, [this](qint64 id) {
            say(QStringLiteral(
                    "run %1 paused; moving on (kbstudio-cli resume --run %1 queues it again)")
                    .arg(id));
            m_engine.stop();
            QTimer::singleShot(0, this, &Server::next);
        });
        connect(&m_engine, &engine::RunEngine::attemptFinished, this,
                [](const engine::AttemptResult& r) {
                    say(QStringLiteral("run %1 attempt %2 %3 %4: %5")
                            .arg(r.runId)
                            .arg(r.attemptId)
                            .arg(r.model, r.task, r.verdict));
                });
        connect(&m_engine, &engine::RunEngine::logLine, this, [](const QString& s) { say(s); });
    }

    void next() {
        if (m_engine.isRunning())
            return;
        try {
            db::LeaseRepository leases(m_engine.database().connection());
            engine::reapDeadEngines(leases);
            for (db::Id id : leases.runnableRuns(db::LeaseRepository::now(), m_leaseSeconds)) {
                try {
                    m_engine.start(id);
                    say(QStringLiteral("working on run %1").arg(id));
                    return;
                } catch (const engine::Error& e) {
                    say(e.message()); // taken by another engine meanwhile
                }
            }
        } catch (const db::Error& e) {
            say(QStringLiteral("cannot read the queue: %1").arg(QString::fromUtf8(e.what())));
        }
        if (m_exitWhenIdle) {
            say(QStringLiteral("no run left to work on"));
            QCoreApplication::quit();
            return;
        }
        m_idle.start(static_cast<int>(m_pollSeconds * 1000));
    }

private:
    engine::RunEngine& m_engine;
    QTimer m_idle;
    double m_pollSeconds;
    bool m_exitWhenIdle;
    double m_leaseSeconds;
};

} // namespace

int serveCommand(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Work through every queued or resumable run of a database, highest priority first, until "
        "SIGTERM or Ctrl-C (which stop cleanly: work in flight is queued again for the next "
        "engine)."));
    p.addOption(
        {QStringLiteral("db"), QStringLiteral("The database file."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("poll"),
                 QStringLiteral("Seconds between looks for new runs when idle (default 5)."),
                 QStringLiteral("S"), QStringLiteral("5")});
    p.addOption(
        {QStringLiteral("exit-when-idle"), QStringLiteral("Exit once no run is left to work on.")});
    const QString heartbeatMsDefault = QString::number(engine::kEngineHeartbeatMs);
    const QString leaseDefault = QString::number(engine::kEngineLeaseSeconds);
    p.addOption({QStringLiteral("heartbeat-ms"),
                 QStringLiteral("Heartbeat period (default %1).").arg(heartbeatMsDefault),
                 QStringLiteral("MS"), heartbeatMsDefault});
    p.addOption({QStringLiteral("lease"),
                 QStringLiteral("Lease length in seconds (default %1).").arg(leaseDefault),
                 QStringLiteral("S"), leaseDefault});
    int code = 0;
    if (!parseCommandLine(p, args, QStringLiteral("serve"), code))
        return code;
    const double lease = p.value(QStringLiteral("lease")).toDouble();
    const int heartbeatMs = p.value(QStringLiteral("heartbeat-ms")).toInt();
    const double poll = p.value(QStringLiteral("poll")).toDouble();
    if (lease <= 0 || heartbeatMs <= 0 || poll <= 0 || heartbeatMs >= lease * 1000)
        return fail(QStringLiteral("--poll, --heartbeat-ms and --lease must be positive, the "
                                   "heartbeat shorter than the lease"),
                    2);
    try {
        engine::RunEngine engine(databasePath(p));
        engine.setEngineKind(QStringLiteral("serve"));
        engine.setLeaseTiming(heartbeatMs, lease);
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalFd) != 0)
            return fail(QStringLiteral("cannot set up signal handling"));
        QSocketNotifier notifier(g_signalFd[1], QSocketNotifier::Read);
        int stopSignal = 0;
        QObject::connect(&notifier, &QSocketNotifier::activated, &engine, [&] {
            char c = 0;
            if (::read(g_signalFd[1], &c, 1) == 1)
                stopSignal = c;
            say(QStringLiteral("stopping (%1): work in flight goes back to the queue")
                    .arg(stopSignal == SIGTERM ? QStringLiteral("SIGTERM")
                                               : QStringLiteral("interrupt")));
            engine.stop();
            QCoreApplication::quit();
        });
        struct sigaction sa = {};
        sa.sa_handler = onSignal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGTERM, &sa, nullptr);
        sigaction(SIGINT, &sa, nullptr);

        say(QStringLiteral("serving %1 (pid %2)")
                .arg(databasePath(p))
                .arg(QCoreApplication::applicationPid()));
        Server server(engine, poll, p.isSet(QStringLiteral("exit-when-idle")), lease);
        QTimer::singleShot(0, &server, &Server::next);
        QCoreApplication::exec();
        engine.stop();
        return 0;
    } catch (const engine::Error& e) {
        return fail(e.message());
    } catch (const db::Error& e) {
        return fail(QString::fromUtf8(e.what()));
    }
}

} // namespace kb::cli
