#include "providerprotocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

HttpRequestSpec jsonChatRequest(const QString& path, HttpHeaders headers, bool stream,
                                const QJsonObject& body) {
    HttpRequestSpec spec;
    spec.path = path;
    spec.headers = std::move(headers);
    spec.streamBody = stream;
    if (stream)
        spec.headers.emplaceBack("Accept", "text/event-stream");
    spec.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return spec;
}

HttpRequestSpec modelListRequest(const QString& path, HttpHeaders headers) {
    HttpRequestSpec spec;
    spec.method = "GET";
    spec.path = path;
    spec.headers = std::move(headers);
    return spec;
}

bool parseReplyObject(const QByteArray& body, QJsonObject* out, QString* error) {
    QJsonParseError perr{};
    const auto doc = QJsonDocument::fromJson(body, &perr);
    if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
        *error = QStringLiteral("the provider's reply is not valid JSON (%1)")
                     .arg(perr.error != QJsonParseError::NoError ? perr.errorString()
                                                                 : QStringLiteral("not an object"));
        return false;
    }
    *out = doc.object();
    return true;
}

ErrorBody parseErrorBody(const QByteArray& body) {
    ErrorBody out;
    const auto doc = QJsonDocument::fromJson(body);
    if (!doc.isObject()) {
        // A proxy's HTML page or plain text: keep a short, single-line excerpt.
        QString text = QString::fromUtf8(body.left(300)).simplified();
        if (!text.isEmpty() && !text.startsWith(QLatin1Char('<')))
            out.message = text;
        return out;
    }
    const auto root = doc.object();
    const auto err = root.value(QStringLiteral("error"));
    if (err.isObject()) {
        const auto e = err.toObject();
        out.message = e.value(QStringLiteral("message")).toString();
        out.type = e.value(QStringLiteral("type")).toString();
        if (out.type.isEmpty() && e.value(QStringLiteral("code")).isString())
            out.type = e.value(QStringLiteral("code")).toString();
    } else if (err.isString()) {
        out.message = err.toString();
    }
    if (out.message.isEmpty())
        out.message = root.value(QStringLiteral("message")).toString();
    if (out.message.isEmpty()) {
        const auto detail = root.value(QStringLiteral("detail"));
        if (detail.isString())
            out.message = detail.toString();
        else if (detail.isArray())
            out.message = detail.toArray().at(0).toObject().value(QStringLiteral("msg")).toString();
    }
    return out;
}

} // namespace kb::engine
