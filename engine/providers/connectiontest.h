#pragma once
// "Test connection" for a provider: lists the models the endpoint offers (GET {base}/v1/models,
// with the provider's own headers), then, when a model is named, sends it a one-token request.
// Reports the model list or a readable error that never holds the API key.

#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrl>

class QNetworkAccessManager;

class QTimer;

namespace kb::engine {

struct ConnectionTestSpec {
    QString kind;    // openai, anthropic (demo and replay need no connection)
    QString baseUrl; // "https://api.openai.com" or ".../v1"; a trailing /v1 is not doubled
    QString apiKey;  // sent in the request headers only
    QString model;   // the model for the one-token request; empty = list the models only
    int timeoutMs = 20000;
    QString anthropicVersion = QStringLiteral("2023-06-01");
};

struct ConnectionTestResult {
    bool ok = false;
    QStringList models;       // as listed by the endpoint, sorted
    bool modelListed = false; // spec.model is among them
    bool modelAnswered = false;
    int httpStatus = 0; // of the request that failed, 0 for network errors
    QString message;    // one readable line (success or error)
};

// {base}/v1/<path> without doubling a /v1 already at the end of base.
QUrl providerEndpoint(const QString& baseUrl, const QString& path);

class ConnectionTest : public QObject {
    Q_OBJECT
public:
    explicit ConnectionTest(QObject* parent = nullptr);
    ~ConnectionTest() override;

    // Starts the test; finished() follows exactly once (also for offline kinds). A test still
    // running is abandoned and reports nothing.
    void start(const ConnectionTestSpec& spec);
    bool isRunning() const { return m_reply != nullptr; }

Q_SIGNALS:
    void finished(const kb::engine::ConnectionTestResult& result);

private:
    void send(const QUrl& url, const QByteArray& body);
    void onReply();
    void onTimeout();
    void done();
    QString httpError(int status, const QByteArray& body, const QUrl& url) const;

    enum class Step { Models, Ping };
    QNetworkAccessManager* m_nam;
    QTimer* m_timer;
    QPointer<QNetworkReply> m_reply;
    ConnectionTestSpec m_spec;
    ConnectionTestResult m_result;
    Step m_step = Step::Models;
};

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::ConnectionTestResult)
