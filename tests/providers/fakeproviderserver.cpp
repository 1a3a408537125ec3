#include "fakeproviderserver.h"

#include <QJsonDocument>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace kb::test {

QByteArray ReceivedRequest::header(const QByteArray& name) const {
    for (const auto& [k, v] : headers)
        if (k == name.toLower())
            return v;
    return {};
}

QJsonObject ReceivedRequest::json() const {
    return QJsonDocument::fromJson(body).object();
}

ScriptedResponse ScriptedResponse::json(int status, const QByteArray& body, const Headers& extra) {
    ScriptedResponse r;
    r.status = status;
    r.body = body;
    r.headers = extra;
    r.headers.append({QByteArray("Content-Type"), QByteArray("application/json")});
    return r;
}

ScriptedResponse ScriptedResponse::sse(const QList<QByteArray>& chunks) {
    ScriptedResponse r;
    r.chunks = chunks;
    r.headers.append({QByteArray("Content-Type"), QByteArray("text/event-stream")});
    return r;
}

QByteArray sseData(const QByteArray& json) {
    return QByteArray("data: " + json + "\n\n");
}

QByteArray sseEvent(const QByteArray& event, const QByteArray& json) {
    return QByteArray("event: " + event + "\ndata: " + json + "\n\n");
}

FakeProviderServer::FakeProviderServer(QObject* parent)
    : QObject(parent)
    , m_server(new QTcpServer(this)) {
    m_server->listen(QHostAddress::LocalHost, 0);
    connect(m_server, &QTcpServer::newConnection, this, &FakeProviderServer::onNewConnection);
}

FakeProviderServer::~FakeProviderServer() {
    for (auto it = m_buffers.begin(); it != m_buffers.end(); ++it)
        it.key()->disconnect(this);
}

quint16 FakeProviderServer::port() const {
    return m_server->serverPort();
}

QUrl FakeProviderServer::url(const QString& path) const {
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port()).arg(path));
}

void FakeProviderServer::enqueue(const ScriptedResponse& response) {
    m_script.append(response);
}

void FakeProviderServer::onNewConnection() {
    while (QTcpSocket* s = m_server->nextPendingConnection()) {
        s->setParent(this);
        m_buffers.insert(s, {});
        connect(s, &QTcpSocket::readyRead, this, [this, s] { onReadyRead(s); });
        connect(s, &QTcpSocket::disconnected, this, [this, s] {
            m_buffers.remove(s);
            s->deleteLater();
        });
    }
}

void FakeProviderServer::onReadyRead(QTcpSocket* s) {
    QByteArray& buf = m_buffers[s];
    buf.append(s->readAll());
    const qsizetype end = buf.indexOf("\r\n\r\n");
    if (end < 0)
        return;
    ReceivedRequest req;
    const QList<QByteArray> lines = buf.left(end).split('\n');
    const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
    req.method = first.value(0);
    req.path = first.value(1);
    qsizetype length = 0;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines.at(i).indexOf(':');
        if (colon < 0)
            continue;
        const QByteArray name = lines.at(i).left(colon).trimmed().toLower();
        const QByteArray value = lines.at(i).mid(colon + 1).trimmed();
        req.headers.append({name, value});
        if (name == "content-length")
            length = value.toLongLong();
    }
    if (buf.size() < end + 4 + length)
        return;
    req.body = buf.mid(end + 4, length);
    req.raw = buf.left(end + 4 + length);
    buf.remove(0, end + 4 + length);
    m_requests.append(req);
    const ScriptedResponse response =
        m_script.isEmpty()
            ? ScriptedResponse::json(500, R"({"error":{"message":"no scripted response left"}})")
            : m_script.takeFirst();
    Q_EMIT requestReceived(static_cast<int>(m_requests.size()));
    respond(s, response);
}

void FakeProviderServer::respond(QTcpSocket* s, const ScriptedResponse& r) {
    if (r.neverAnswer)
        return;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(r.status) + " Scripted\r\n";
    for (const auto& [k, v] : r.headers)
        head += k + ": " + v + "\r\n";
    head += "Connection: close\r\n";
    if (r.chunks.isEmpty()) {
        head += "Content-Length: " + QByteArray::number(r.body.size()) + "\r\n\r\n";
        s->write(head + r.body);
        s->disconnectFromHost();
        return;
    }
    head += "Cache-Control: no-cache\r\n\r\n";
    s->write(head);
    s->flush();
    QPointer<QTcpSocket> guard(s);
    for (qsizetype i = 0; i < r.chunks.size(); ++i) {
        const bool last = i + 1 == r.chunks.size();
        QTimer::singleShot(static_cast<int>((i + 1) * r.chunkDelayMs), this,
                           [guard, chunk = r.chunks.at(i), last] {
                               if (!guard || guard->state() != QAbstractSocket::ConnectedState)
                                   return; // the client hung up
                               guard->write(chunk);
                               guard->flush();
                               if (last)
                                   guard->disconnectFromHost();
                           });
    }
}

} // namespace kb::test
