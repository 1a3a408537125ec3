#pragma once
// A scripted HTTP/1.1 server on 127.0.0.1 that stands in for a model provider in tests. It
// records every request and answers each with the next scripted response: a whole body, a
// stream written in separate TCP writes, or silence.

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPair>
#include <QUrl>

class QTcpServer;
class QTcpSocket;

namespace kb::test {

using Headers = QList<QPair<QByteArray, QByteArray>>;

struct ReceivedRequest {
    QByteArray method;
    QByteArray path;
    Headers headers; // names in lower case
    QByteArray body;
    QByteArray raw; // everything the client sent, headers included

    QByteArray header(const QByteArray& name) const;
    QJsonObject json() const;
};

struct ScriptedResponse {
    int status = 200;
    Headers headers;
    QByteArray body;          // sent at once, with Content-Length
    QList<QByteArray> chunks; // when set: sent one TCP write each, then the connection closes
    int chunkDelayMs = 20;
    bool neverAnswer = false; // read the request, then stay silent

    static ScriptedResponse json(int status, const QByteArray& body, const Headers& extra = {});
    static ScriptedResponse sse(const QList<QByteArray>& chunks);
};

// "data: <json>\n\n", and its Anthropic form with an event line.
QByteArray sseData(const QByteArray& json);
QByteArray sseEvent(const QByteArray& event, const QByteArray& json);

class FakeProviderServer : public QObject {
    Q_OBJECT
public:
    explicit FakeProviderServer(QObject* parent = nullptr);
    ~FakeProviderServer() override;

    quint16 port() const;
    QUrl url(const QString& path = {}) const; // http://127.0.0.1:<port><path>

    void enqueue(const ScriptedResponse& response);
    int unanswered() const { return static_cast<int>(m_script.size()); }
    const QList<ReceivedRequest>& requests() const { return m_requests; }
    int openConnections() const { return static_cast<int>(m_buffers.size()); }

Q_SIGNALS:
    void requestReceived(int count);

private:
    void onNewConnection();
    void onReadyRead(QTcpSocket* socket);
    void respond(QTcpSocket* socket, const ScriptedResponse& response);

    QTcpServer* m_server;
    QList<ScriptedResponse> m_script;
    QList<ReceivedRequest> m_requests;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

} // namespace kb::test
