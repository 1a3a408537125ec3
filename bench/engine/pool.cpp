#include "benchcommon.h"
#include "core/paths.h"
#include "db/catalogrepository.h"
#include "db/runrepository.h"
#include "providers/keystore.h"
#include "run/runengine.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

namespace kb::bench {
namespace {

// An OpenAI-compatible endpoint that answers after a fixed latency with the demo-a candidate of
// the task in the prompt. The first sample of each task is a real (cold) build; later samples of
// the same task send the same code, which the content-addressed build cache serves.
class SimulatedProvider : public QObject {
public:
    SimulatedProvider(int latencyMs, QObject* parent = nullptr)
        : QObject(parent)
        , m_latencyMs(latencyMs) {
        const QString suiteDir = engine::sampleSuiteDir();
        QFile suite(suiteDir + QStringLiteral("/suite.json"));
        suite.open(QIODevice::ReadOnly);
        for (const auto& t : QJsonDocument::fromJson(suite.readAll())
                                 .object()
                                 .value(QStringLiteral("tasks"))
                                 .toArray()) {
            const QString key = t.toObject().value(QStringLiteral("id")).toString();
            QFile src(suiteDir + QLatin1Char('/') +
                      t.toObject().value(QStringLiteral("file")).toString());
            QFile cand(engine::demoDir() + QStringLiteral("/demo-a/") + key +
                       QStringLiteral(".py"));
            if (src.open(QIODevice::ReadOnly) && cand.open(QIODevice::ReadOnly))
                m_tasks.append({QString::fromUtf8(src.readAll()).trimmed(),
                                QString::fromUtf8(cand.readAll())});
        }
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (auto* s = m_server.nextPendingConnection())
                serve(s);
        });
        m_server.listen(QHostAddress::LocalHost);
    }
    quint16 port() const { return m_server.serverPort(); }

private:
    void serve(QTcpSocket* s) {
        auto buffer = std::make_shared<QByteArray>();
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
        connect(s, &QTcpSocket::readyRead, this, [this, s, buffer] {
            buffer->append(s->readAll());
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QByteArray head = buffer->left(end).toLower();
            const qsizetype at = head.indexOf("content-length:");
            const qsizetype length =
                at < 0 ? 0
                       : head.mid(at + 15, head.indexOf('\n', at) - at - 15).trimmed().toLongLong();
            if (buffer->size() < end + 4 + length)
                return;
            const QByteArray body = buffer->mid(end + 4, length);
            buffer->clear();
            const QString prompt = QString::fromUtf8(body);
            QString code = QStringLiteral("# no task matched\n");
            for (const auto& [source, candidate] : std::as_const(m_tasks)) {
                if (prompt.contains(
                        QString::fromUtf8(
                            QJsonDocument(QJsonArray{source}).toJson(QJsonDocument::Compact))
                            .mid(2)
                            .chopped(2))) {
                    code = candidate;
                    ++m_served;
                    break;
                }
            }
            QJsonObject message{
                {QStringLiteral("role"), QStringLiteral("assistant")},
                {QStringLiteral("content"),
                 QString(QStringLiteral("```python\n") + code + QStringLiteral("```\n"))}};
            QJsonObject choice;
            choice.insert(QStringLiteral("index"), 0);
            choice.insert(QStringLiteral("message"), message);
            choice.insert(QStringLiteral("finish_reason"), QStringLiteral("stop"));
            QJsonObject usage;
            usage.insert(QStringLiteral("prompt_tokens"), 1000);
            usage.insert(QStringLiteral("completion_tokens"), 800);
            QJsonObject reply;
            reply.insert(QStringLiteral("id"), QStringLiteral("sim"));
            reply.insert(QStringLiteral("object"), QStringLiteral("chat.completion"));
            reply.insert(QStringLiteral("model"), QStringLiteral("sim-model"));
            reply.insert(QStringLiteral("choices"), QJsonArray{choice});
            reply.insert(QStringLiteral("usage"), usage);
            const QByteArray json = QJsonDocument(reply).toJson(QJsonDocument::Compact);
            QTimer::singleShot(m_latencyMs, s, [s, json] {
                s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                         QByteArray::number(json.size()) + "\r\nConnection: close\r\n\r\n" + json);
                s->disconnectFromHost();
            });
        });
    }

    QTcpServer m_server;
    int m_latencyMs;
    int m_served = 0;
    QList<std::pair<QString, QString>> m_tasks;
};

QString loadAverage() {
    QFile f(QStringLiteral("/proc/loadavg"));
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("unknown");
    return QString::fromLatin1(f.readAll()).section(QLatin1Char(' '), 0, 2);
}

} // namespace

int poolUtilisation(const QStringList& args) {
    QTextStream out(stdout);
    // 25 samples of the 8 sample tasks: the 200-attempt run of the target.
    const int samples = std::max(1, args.value(0, QStringLiteral("25")).toInt());
    const int latencyMs = args.value(1, QStringLiteral("2000")).toInt();
    const int jobs = args.value(2, QStringLiteral("2")).toInt();
    QTemporaryDir dir;
    qputenv("KBSTUDIO_BUILD_CACHE",
            (dir.path() + QStringLiteral("/build-cache")).toUtf8()); // cold builds
    SimulatedProvider provider(latencyMs);
    engine::RunEngine e(dir.filePath(QStringLiteral("pool.kbdb")));
    auto keys = std::make_shared<engine::FileKeyStore>(dir.filePath(QStringLiteral("keys.json")));
    keys->writeKey(QStringLiteral("sim"), QStringLiteral("not-a-real-key"));
    e.setKeyStore(keys);
    e.ensureDemoCatalog();
    {
        db::CatalogRepository catalog(e.database().connection());
        const db::Id pid = catalog.upsertProvider(
            {0, "sim", "openai", "http://127.0.0.1:" + std::to_string(provider.port()) + "/v1",
             R"({"max_concurrent":16,"max_attempts":1})"});
        db::ModelRow m;
        m.providerId = pid;
        m.name = "sim-model";
        catalog.upsertModel(m);
    }
    engine::RunSpec spec;
    spec.suite = QStringLiteral("sample");
    spec.models = {QStringLiteral("sim-model")};
    spec.samples = samples;
    spec.settings.device = QStringLiteral("cpu");
    spec.settings.buildJobs = jobs;
    spec.settings.timingTrials = 30;
    // As on a GPU host: builds (on the CPU cores) overlap timing (on the device). A CPU-only run
    // keeps them apart for clean timings, which caps the pool's use by design.
    spec.settings.cpuTimingExclusive = false;
    const db::Id run = e.createRun(spec);
    engine::RunProgress last;
    QObject::connect(&e, &engine::RunEngine::progress, &e,
                     [&](const engine::RunProgress& p) { last = p; });
    QSignalSpy done(&e, &engine::RunEngine::runFinished);
    // This benchmark competes with whatever else runs on the host: record the load around it.
    const QString loadBefore = loadAverage();
    QElapsedTimer clock;
    clock.start();
    e.start(run);
    if (!done.wait(1800000)) {
        out << "the run did not finish" << Qt::endl;
        return 1;
    }
    int correct = 0, total = 0;
    for (const auto& a : db::RunRepository(e.database().connection()).attempts(run)) {
        ++total;
        correct += a.verdict == "correct";
    }
    Table table({QStringLiteral("measure"), QStringLiteral("value")});
    table.add(
        {QStringLiteral(
             "attempts (8 sample tasks x samples; 8 real builds, the rest from the build cache)"),
         QString::number(total)});
    table.add({QStringLiteral("simulated provider latency per call"),
               QString::number(latencyMs) + QStringLiteral(" ms")});
    table.add({QStringLiteral("parallel builds"), QString::number(jobs)});
    table.add({QStringLiteral("correct"), QString::number(correct)});
    table.add({QStringLiteral("run wall time"),
               fmt(static_cast<double>(clock.elapsed()) / 1000.0) + QStringLiteral(" s")});
    table.add({QStringLiteral("evaluation pool busy since its first evaluation began"),
               fmt(100.0 * last.evalPoolBusy) + QStringLiteral(" %")});
    table.add({QStringLiteral("load average (1, 5, 15 min) at the start"), loadBefore});
    table.add({QStringLiteral("load average (1, 5, 15 min) at the end"), loadAverage()});
    table.print(out);
    return 0;
}

} // namespace kb::bench
