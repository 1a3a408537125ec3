#include "providerprotocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {

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
