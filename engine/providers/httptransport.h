#pragma once
// One HTTP exchange with a provider, seen through: retries with backoff and retry-after, a
// silence timeout per attempt, a cap on the response size, and errors that say what happened
// and never hold an API key. Knows nothing of any provider's JSON beyond error bodies.

#include "providerprotocol.h"
#include "retrypolicy.h"

#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QObject>
#include <QPointer>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;
class QTimer;

namespace kb::engine {

Q_DECLARE_LOGGING_CATEGORY(lcProviders)

struct TransportSettings {
    qint64 timeoutMs = 600000; // an attempt fails after this long without a byte from the provider
    qint64 maxResponseBytes = qint64(64) * 1024 * 1024;
    RetrySettings retry;
};

struct HttpResult {
    int status = 0;
    HttpHeaders headers;
    QByteArray body;
    int attempts = 1;
};

class HttpCall : public QObject {
    Q_OBJECT
public:
    ~HttpCall() override;
    // Ends the call now with this error (unless it has already ended). Not retried.
    void abort(const ProviderError& error);
    int attempts() const { return m_attempt; }

Q_SIGNALS:
    // Streamed calls only: the body of a 2xx answer, as it arrives.
    void chunkReceived(const QByteArray& bytes);
    void retryScheduled(int nextAttempt, qint64 delayMs, const kb::engine::ProviderError& cause);
    // The final outcome; exactly one of the two is emitted, then the call deletes itself.
    void succeeded(const kb::engine::HttpResult& result);
    void failed(const kb::engine::ProviderError& error);

private:
    friend class HttpTransport;
    HttpCall(QNetworkAccessManager* nam, const QUrl& url, HttpRequestSpec spec,
             const TransportSettings& settings, const RetryPolicy& policy, QObject* parent);
    void startAttempt();
    void onReadyRead();
    void onFinished();
    void onSilence();
    void stopReply(const ProviderError& reason);
    void finish(const ProviderError* error, const HttpResult* result);
    QString describe(const ProviderError& error) const;

    QNetworkAccessManager* m_nam;
    QUrl m_url;
    HttpRequestSpec m_spec;
    TransportSettings m_settings;
    RetryPolicy m_policy;
    QList<QByteArray> m_secrets;
    QPointer<QNetworkReply> m_reply;
    QTimer* m_silence;
    QTimer* m_backoff;
    QByteArray m_body;
    int m_attempt = 0;
    bool m_delivered = false; // chunks of this call reached the consumer: no more retries
    bool m_done = false;
    std::optional<ProviderError> m_stopReason;
};

class HttpTransport : public QObject {
    Q_OBJECT
public:
    HttpTransport(const QUrl& baseUrl, const TransportSettings& settings, RetryPolicy policy,
                  QObject* parent = nullptr);
    // Starts the exchange; connect to the call's signals before returning to the event loop.
    HttpCall* start(const HttpRequestSpec& spec);
    QUrl urlFor(const QString& path) const;
    const TransportSettings& settings() const { return m_settings; }

private:
    QNetworkAccessManager* m_nam;
    QUrl m_base;
    TransportSettings m_settings;
    RetryPolicy m_policy;
};

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::HttpResult)
