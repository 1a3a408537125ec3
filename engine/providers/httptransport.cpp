#include "httptransport.h"

#include "redaction.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>
#include <climits>

namespace kb::engine {

Q_LOGGING_CATEGORY(lcProviders, "kb.providers", QtInfoMsg)

namespace {

QString seconds(qint64 ms) {
    return ms % 1000 == 0 ? QString::number(ms / 1000)
                          : QString::number(static_cast<double>(ms) / 1000.0, 'g', 3);
}

bool isRetryableNetworkError(QNetworkReply::NetworkError e) {
    switch (e) {
    case QNetworkReply::OperationCanceledError:
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::ProtocolUnknownError:
    case QNetworkReply::ProtocolInvalidOperationError:
    case QNetworkReply::AuthenticationRequiredError:
    case QNetworkReply::ProxyAuthenticationRequiredError:
        return false;
    default:
        return true;
    }
}

QByteArray headerValue(const HttpHeaders& headers, const QByteArray& name) {
    for (const auto& [k, v] : headers)
        if (k.compare(name, Qt::CaseInsensitive) == 0)
            return v.trimmed().toLower();
    return {};
}

} // namespace

HttpCall::HttpCall(QNetworkAccessManager* nam, const QUrl& url, HttpRequestSpec spec,
                   const TransportSettings& settings, const RetryPolicy& policy, QObject* parent)
    : QObject(parent)
    , m_nam(nam)
    , m_url(url)
    , m_spec(std::move(spec))
    , m_settings(settings)
    , m_policy(policy)
    , m_secrets(secretsOf(m_spec.headers))
    , m_silence(new QTimer(this))
    , m_backoff(new QTimer(this)) {
    m_silence->setSingleShot(true);
    m_backoff->setSingleShot(true);
    connect(m_silence, &QTimer::timeout, this, &HttpCall::onSilence);
    connect(m_backoff, &QTimer::timeout, this, &HttpCall::startAttempt);
}

HttpCall::~HttpCall() {
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void HttpCall::startAttempt() {
    if (m_done)
        return;
    ++m_attempt;
    m_body.clear();
    m_stopReason.reset();
    QNetworkRequest req(m_url);
    for (const auto& [name, value] : m_spec.headers)
        req.setRawHeader(name, value);
    req.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    qCDebug(lcProviders).noquote()
        << m_spec.method << m_url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery)
        << "attempt" << m_attempt << "headers" << redactedHeaders(m_spec.headers);
    m_reply = m_nam->sendCustomRequest(req, m_spec.method,
                                       m_spec.method == "GET" ? QByteArray() : m_spec.body);
    connect(m_reply, &QNetworkReply::readyRead, this, &HttpCall::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &HttpCall::onFinished);
    m_silence->start(static_cast<int>(std::min<qint64>(m_settings.timeoutMs, INT_MAX)));
}

void HttpCall::onReadyRead() {
    if (!m_reply || m_stopReason)
        return;
    m_silence->start();
    const QByteArray bytes = m_reply->readAll();
    m_body.append(bytes);
    if (m_body.size() > m_settings.maxResponseBytes) {
        ProviderError e;
        e.message = QStringLiteral("the response exceeded the limit of %1 bytes and was aborted")
                        .arg(m_settings.maxResponseBytes);
        stopReply(e);
        return;
    }
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (m_spec.streamBody && status >= 200 && status < 300 && !bytes.isEmpty()) {
        m_delivered = true;
        Q_EMIT chunkReceived(bytes);
    }
}

void HttpCall::onSilence() {
    ProviderError e;
    e.message = QStringLiteral("request timed out after %1 s without data from the provider")
                    .arg(seconds(m_settings.timeoutMs));
    e.transient = true;
    stopReply(e);
}

void HttpCall::stopReply(const ProviderError& reason) {
    m_stopReason = reason;
    if (m_reply)
        m_reply->abort(); // emits finished: onFinished takes it from there
}

void HttpCall::abort(const ProviderError& error) {
    if (m_done)
        return;
    if (m_reply) {
        m_delivered = true; // the consumer asked: never retry
        stopReply(error);
    } else {
        finish(&error, nullptr);
    }
}

void HttpCall::onFinished() {
    QNetworkReply* reply = m_reply;
    if (!reply || m_done)
        return;
    m_silence->stop();
    if (!m_stopReason && reply->bytesAvailable() > 0)
        onReadyRead();
    m_reply = nullptr;
    reply->deleteLater();

    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    HttpHeaders headers;
    for (const auto& [k, v] : reply->rawHeaderPairs())
        headers.emplaceBack(k, v);

    ProviderError error;
    bool retryable = false;
    std::optional<qint64> retryAfter;
    if (m_stopReason) {
        error = *m_stopReason;
        retryable = error.transient && !m_delivered;
    } else if (status >= 200 && status < 300) {
        if (reply->error() == QNetworkReply::NoError) {
            HttpResult r{status, headers, m_body, m_attempt};
            finish(nullptr, &r);
            return;
        }
        error.message = m_spec.streamBody && m_delivered
                            ? QStringLiteral("stream ended before completion (connection lost: %1)")
                                  .arg(reply->errorString())
                            : QStringLiteral("connection lost while reading the reply: %1")
                                  .arg(reply->errorString());
        error.httpStatus = status;
        error.transient = true;
        retryable = !m_delivered;
    } else if (status != 0) {
        const ErrorBody body = parseErrorBody(m_body);
        const QString phrase =
            reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
        error.message = QStringLiteral("HTTP %1%2 from the provider")
                            .arg(status)
                            .arg(phrase.isEmpty() ? QString() : QString(QLatin1Char(' ') + phrase));
        if (!body.message.isEmpty())
            error.message += QStringLiteral(": ") + body.message;
        error.httpStatus = status;
        error.providerType = body.type;
        retryable = RetryPolicy::isRetryableStatus(status);
        // Both big providers say explicitly when a retry is (not) worth it.
        const QByteArray should = headerValue(headers, "x-should-retry");
        if (should == "true")
            retryable = true;
        else if (should == "false")
            retryable = false;
        retryAfter = m_policy.retryAfterMs(headers);
        error.retryAfterMs = retryAfter.value_or(-1);
        error.transient = retryable;
    } else {
        error.message = QStringLiteral("could not reach the provider at %1: %2")
                            .arg(m_url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery),
                                 reply->errorString());
        retryable = isRetryableNetworkError(reply->error());
        error.transient = retryable;
    }
    error.message = redactSecrets(error.message, m_secrets);

    const RetryDecision next = m_policy.decide(m_attempt, retryable, retryAfter);
    if (next.retry) {
        qCInfo(lcProviders).noquote() << "retrying in" << next.delayMs << "ms:" << error.message;
        Q_EMIT retryScheduled(m_attempt + 1, next.delayMs, error);
        m_backoff->start(static_cast<int>(std::min<qint64>(next.delayMs, INT_MAX)));
        return;
    }
    if (retryable && retryAfter && *retryAfter > m_policy.settings().maxRetryAfterMs)
        error.message +=
            QStringLiteral(" (the provider asks to wait %1 s)").arg(seconds(*retryAfter));
    finish(&error, nullptr);
}

void HttpCall::finish(const ProviderError* error, const HttpResult* result) {
    if (m_done)
        return;
    m_done = true;
    m_silence->stop();
    m_backoff->stop();
    if (error) {
        ProviderError e = *error;
        if (m_attempt > 1)
            e.message += QStringLiteral(" (after %1 attempts)").arg(m_attempt);
        qCInfo(lcProviders).noquote() << m_spec.method << m_url.path() << "failed:" << e.message;
        Q_EMIT failed(e);
    } else {
        qCDebug(lcProviders).noquote() << m_spec.method << m_url.path() << "HTTP" << result->status
                                       << result->body.size() << "bytes";
        Q_EMIT succeeded(*result);
    }
    deleteLater();
}

HttpTransport::HttpTransport(const QUrl& baseUrl, const TransportSettings& settings,
                             RetryPolicy policy, QObject* parent)
    : QObject(parent)
    , m_nam(new QNetworkAccessManager(this))
    , m_base(baseUrl)
    , m_settings(settings)
    , m_policy(std::move(policy)) {
    // The key goes to the base URL's host only: a redirect elsewhere is not followed (it fails
    // with the provider's status), since it would carry the key's headers along.
    m_nam->setRedirectPolicy(QNetworkRequest::SameOriginRedirectPolicy);
}

QUrl HttpTransport::urlFor(const QString& path) const {
    QString base = m_base.toString();
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    return QUrl(QString(base + QLatin1Char('/') + path));
}

HttpCall* HttpTransport::start(const HttpRequestSpec& spec) {
    auto* call = new HttpCall(m_nam, urlFor(spec.path), spec, m_settings, m_policy, this);
    // Started from the event loop so the caller can connect first.
    QMetaObject::invokeMethod(call, &HttpCall::startAttempt, Qt::QueuedConnection);
    return call;
}

} // namespace kb::engine
