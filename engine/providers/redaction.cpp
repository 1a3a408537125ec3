#include "redaction.h"

namespace kb::engine {
namespace {
const QByteArray kRedacted = "[redacted]";
}

bool isSecretHeader(const QByteArray& name) {
    const QByteArray n = name.toLower();
    return n == "authorization" || n == "proxy-authorization" || n == "x-api-key" ||
           n == "api-key" || n == "x-goog-api-key";
}

QList<QByteArray> secretsOf(const HttpHeaders& headers) {
    QList<QByteArray> out;
    for (const auto& [name, value] : headers) {
        if (!isSecretHeader(name))
            continue;
        QByteArray v = value.trimmed();
        const qsizetype space = v.indexOf(' ');
        if (space > 0 && name.compare("authorization", Qt::CaseInsensitive) == 0)
            v = v.mid(space + 1).trimmed();
        // Very short values would redact ordinary text and protect nothing.
        if (v.size() >= 4)
            out.append(v);
    }
    return out;
}

HttpHeaders redactedHeaders(const HttpHeaders& headers) {
    HttpHeaders out = headers;
    for (auto& [name, value] : out)
        if (isSecretHeader(name))
            value = kRedacted;
    return out;
}

QByteArray redactSecrets(QByteArray text, const QList<QByteArray>& secrets) {
    if (text.isEmpty())
        return text;
    for (const auto& s : secrets)
        if (!s.isEmpty())
            text.replace(s, kRedacted);
    return text;
}

QString redactSecrets(const QString& text, const QList<QByteArray>& secrets) {
    // Qt 6.4's QString::replace crashes on a null string: nothing to redact there anyway.
    if (text.isEmpty())
        return text;
    QString out = text;
    for (const auto& s : secrets)
        if (!s.isEmpty())
            out.replace(QString::fromUtf8(s), QString::fromLatin1(kRedacted));
    return out;
}

} // namespace kb::engine
