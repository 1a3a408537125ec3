#include "connectiontest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace kb::engine {

namespace {

// The provider's message from an error body ({"error": {"message": ...}} or {"error": "..."}).
QString errorBodyMessage(const QByteArray& body) {
    const QJsonObject o = QJsonDocument::fromJson(body).object();
    const QJsonValue e = o.value(QStringLiteral("error"));
    if (e.isObject())
        return e.toObject().value(QStringLiteral("message")).toString();
    if (e.isString())
        return e.toString();
    return o.value(QStringLiteral("message")).toString();
}

} // namespace

QUrl providerEndpoint(const QString& baseUrl, const QString& path) {
    QString base = baseUrl.trimmed();
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    if (!base.endsWith(QStringLiteral("/v1")))
        base += QStringLiteral("/v1");
    return QUrl(base + QLatin1Char('/') + path);
}

ConnectionTest::ConnectionTest(QObject* parent)
    : QObject(parent)
    , m_nam(new QNetworkAccessManager(this))
    , m_timer(new QTimer(this)) {
    qRegisterMetaType<kb::engine::ConnectionTestResult>();
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &ConnectionTest::onTimeout);
}

ConnectionTest::~ConnectionTest() {
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
    }
}

void ConnectionTest::start(const ConnectionTestSpec& spec) {
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    m_spec = spec;
    m_result = {};
    m_step = Step::Models;
    if (spec.kind == QLatin1String("demo") || spec.kind == QLatin1String("replay")) {
        m_result.ok = true;
        m_result.message =
            tr("The %1 provider works offline; there is nothing to connect to.").arg(spec.kind);
        QMetaObject::invokeMethod(this, &ConnectionTest::done, Qt::QueuedConnection);
        return;
    }
    if (spec.kind != QLatin1String("openai") && spec.kind != QLatin1String("anthropic")) {
        m_result.message =
            tr("Unknown provider kind '%1' (openai, anthropic, demo or replay).").arg(spec.kind);
        QMetaObject::invokeMethod(this, &ConnectionTest::done, Qt::QueuedConnection);
        return;
    }
    const QUrl url = providerEndpoint(spec.baseUrl, QStringLiteral("models"));
    if (!url.isValid() || url.scheme().isEmpty() || url.host().isEmpty()) {
        m_result.message = tr("The base URL '%1' is not a valid http(s) URL.").arg(spec.baseUrl);
        QMetaObject::invokeMethod(this, &ConnectionTest::done, Qt::QueuedConnection);
        return;
    }
    send(url, {});
}

void ConnectionTest::send(const QUrl& url, const QByteArray& body) {
    QNetworkRequest request(url);
    request.setTransferTimeout(m_spec.timeoutMs);
    if (m_spec.kind == QLatin1String("anthropic")) {
        request.setRawHeader("anthropic-version", m_spec.anthropicVersion.toUtf8());
        if (!m_spec.apiKey.isEmpty())
            request.setRawHeader("x-api-key", m_spec.apiKey.toUtf8());
    } else if (!m_spec.apiKey.isEmpty()) {
        request.setRawHeader("Authorization", "Bearer " + m_spec.apiKey.toUtf8());
    }
    if (body.isEmpty()) {
        m_reply = m_nam->get(request);
    } else {
        request.setHeader(QNetworkRequest::ContentTypeHeader,
                          QByteArrayLiteral("application/json"));
        m_reply = m_nam->post(request, body);
    }
    connect(m_reply, &QNetworkReply::finished, this, &ConnectionTest::onReply);
    m_timer->start(m_spec.timeoutMs);
}

QString ConnectionTest::httpError(int status, const QByteArray& body, const QUrl& url) const {
    QString detail = errorBodyMessage(body);
    if (!m_spec.apiKey.isEmpty())
        detail.replace(m_spec.apiKey, QStringLiteral("[key]"));
    const QString suffix = detail.isEmpty() ? QString() : QStringLiteral(": ") + detail;
    const QString where = url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery);
    if (status == 401 || status == 403)
        return tr("The provider refused the API key (HTTP %1)%2").arg(status).arg(suffix);
    if (status == 404)
        return tr("Nothing at %1 (HTTP 404) — check the base URL%2").arg(where, suffix);
    if (status == 429)
        return tr("The provider is rate limiting (HTTP 429)%1").arg(suffix);
    return tr("%1 answered HTTP %2%3").arg(where).arg(status).arg(suffix);
}

void ConnectionTest::onReply() {
    QNetworkReply* reply = m_reply;
    m_reply = nullptr;
    m_timer->stop();
    if (!reply)
        return;
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    const QUrl url = reply->url();
    if (status == 0) {
        m_result.message = tr("Cannot reach %1: %2").arg(url.host(), reply->errorString());
        done();
        return;
    }
    if (status < 200 || status >= 300) {
        m_result.httpStatus = status;
        m_result.message =
            m_step == Step::Ping
                ? tr("Listing models worked, but the one-token request to '%1' failed: %2")
                      .arg(m_spec.model, httpError(status, body, url))
                : httpError(status, body, url);
        done();
        return;
    }
    if (m_step == Step::Models) {
        const QJsonArray data =
            QJsonDocument::fromJson(body).object().value(QStringLiteral("data")).toArray();
        for (const auto& v : data) {
            const QString id = v.toObject().value(QStringLiteral("id")).toString();
            if (!id.isEmpty())
                m_result.models << id;
        }
        m_result.models.sort();
        if (data.isEmpty() && !QJsonDocument::fromJson(body).isObject()) {
            m_result.message =
                tr("%1 did not answer with a model list (is it an %2-compatible endpoint?)")
                    .arg(url.toString(QUrl::RemoveUserInfo), m_spec.kind);
            done();
            return;
        }
        m_result.modelListed = m_result.models.contains(m_spec.model);
        if (m_spec.model.isEmpty()) {
            m_result.ok = true;
            m_result.message =
                tr("Connected: %n model(s) available.", nullptr, int(m_result.models.size()));
            done();
            return;
        }
        m_step = Step::Ping;
        const QJsonObject message{
            {QStringLiteral("role"), QStringLiteral("user")},
            {QStringLiteral("content"), QStringLiteral("Reply with one word.")}};
        const QJsonObject request{{QStringLiteral("model"), m_spec.model},
                                  {QStringLiteral("max_tokens"), 1},
                                  {QStringLiteral("messages"), QJsonArray{message}}};
        const QString path = m_spec.kind == QLatin1String("anthropic")
                                 ? QStringLiteral("messages")
                                 : QStringLiteral("chat/completions");
        send(providerEndpoint(m_spec.baseUrl, path),
             QJsonDocument(request).toJson(QJsonDocument::Compact));
        return;
    }
    m_result.ok = true;
    m_result.modelAnswered = true;
    m_result.message = tr("Connected: %n model(s) available; '%1' answered a one-token request.",
                          nullptr, int(m_result.models.size()))
                           .arg(m_spec.model);
    done();
}

void ConnectionTest::onTimeout() {
    if (!m_reply)
        return;
    QNetworkReply* reply = m_reply;
    m_reply = nullptr;
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
    m_result.message = tr("No answer from %1 within %2 s.")
                           .arg(reply->url().host())
                           .arg(m_spec.timeoutMs / 1000.0);
    done();
}

void ConnectionTest::done() {
    Q_EMIT finished(m_result);
}

} // namespace kb::engine
