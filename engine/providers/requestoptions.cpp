#include "requestoptions.h"

#include "chattypes.h"
#include "redaction.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringList>
#include <cmath>

namespace kb::engine {
namespace {

bool isAnthropic(const QString& kind) {
    return kind == QLatin1String("anthropic");
}

// Body fields the program sets itself: an extra body must not fight them.
const QHash<QString, QString>& reservedBodyFields() {
    static const QHash<QString, QString> fields{
        {QStringLiteral("model"), QStringLiteral("the model is chosen per run")},
        {QStringLiteral("messages"), QStringLiteral("the conversation is the program's")},
        {QStringLiteral("system"), QStringLiteral("the system prompt is the program's")},
        {QStringLiteral("tools"), QStringLiteral("tools are the agent's")},
        {QStringLiteral("tool_choice"), QStringLiteral("tools are the agent's")},
        {QStringLiteral("stream"), QStringLiteral("use the stream setting")},
        {QStringLiteral("stream_options"), QStringLiteral("use the stream setting")},
        {QStringLiteral("max_tokens"),
         QStringLiteral("use --max-tokens and the token-limit field setting")},
        {QStringLiteral("max_completion_tokens"),
         QStringLiteral("use --max-tokens and the token-limit field setting")},
        {QStringLiteral("temperature"),
         QStringLiteral("use the temperature setting, which is checked")},
    };
    return fields;
}

QString checkNumber(const QJsonObject& s, const char* key, double min, double max) {
    const QString k = QString::fromLatin1(key);
    if (!s.contains(k))
        return {};
    const QJsonValue v = s.value(k);
    if (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() < min || v.toDouble() > max)
        return QStringLiteral("%1 must be a number from %2 to %3").arg(k).arg(min).arg(max);
    return {};
}

} // namespace

bool RequestOptions::isEmpty() const {
    return tokenField.isEmpty() && extraBody.isEmpty() && !temperature && !stream;
}

RequestOptions RequestOptions::fromSettings(const QJsonObject& s) {
    RequestOptions o;
    o.tokenField = s.value(QStringLiteral("token_field")).toString();
    if (o.tokenField.isEmpty() &&
        s.value(QStringLiteral("use_max_completion_tokens")).toBool(false))
        o.tokenField = QStringLiteral("max_completion_tokens");
    o.extraBody = s.value(QStringLiteral("extra_body")).toObject();
    if (s.contains(QStringLiteral("top_p")))
        o.extraBody.insert(QStringLiteral("top_p"), s.value(QStringLiteral("top_p")));
    if (s.contains(QStringLiteral("seed")))
        o.extraBody.insert(QStringLiteral("seed"), s.value(QStringLiteral("seed")));
    if (s.value(QStringLiteral("temperature")).isDouble())
        o.temperature = s.value(QStringLiteral("temperature")).toDouble();
    if (s.value(QStringLiteral("stream")).isBool())
        o.stream = s.value(QStringLiteral("stream")).toBool();
    return o;
}

QString checkTokenField(const QString& kind, const QString& field) {
    if (field.isEmpty() || field == QLatin1String("max_tokens"))
        return {};
    if (field == QLatin1String("max_completion_tokens")) {
        if (isAnthropic(kind))
            return QStringLiteral(
                "Anthropic's Messages API takes max_tokens only, not max_completion_tokens");
        return {};
    }
    return QStringLiteral(
               "the token-limit field must be max_tokens or max_completion_tokens, not '%1'")
        .arg(field);
}

QString checkTemperature(const QString& kind, double t) {
    const double max = isAnthropic(kind) ? 1.0 : 2.0;
    if (!std::isfinite(t) || t < 0 || t > max)
        return QStringLiteral("the temperature must be from 0 to %1 for %2 providers, not %3")
            .arg(max)
            .arg(isAnthropic(kind) ? QStringLiteral("Anthropic")
                                   : QStringLiteral("OpenAI-compatible"))
            .arg(t);
    return {};
}

QString checkExtraBody(const QString& kind, const QJsonObject& body) {
    for (auto it = body.begin(); it != body.end(); ++it) {
        const auto reserved = reservedBodyFields().constFind(it.key());
        if (reserved != reservedBodyFields().constEnd())
            return QStringLiteral("the extra body cannot set '%1' (%2)").arg(it.key(), *reserved);
    }
    if (QString e = checkNumber(body, "top_p", 0, 1); !e.isEmpty())
        return e;
    if (body.contains(QStringLiteral("seed"))) {
        const QJsonValue v = body.value(QStringLiteral("seed"));
        if (!v.isDouble() || v.toDouble() != std::floor(v.toDouble()))
            return QStringLiteral("seed must be an integer");
    }
    if (body.contains(QStringLiteral("reasoning_effort"))) {
        static const QStringList efforts{QStringLiteral("none"), QStringLiteral("minimal"),
                                         QStringLiteral("low"),  QStringLiteral("medium"),
                                         QStringLiteral("high"), QStringLiteral("xhigh")};
        if (isAnthropic(kind))
            return QStringLiteral(
                "reasoning_effort is an OpenAI field; Anthropic models take 'thinking'");
        if (!efforts.contains(body.value(QStringLiteral("reasoning_effort")).toString()))
            return QStringLiteral("reasoning_effort must be one of %1")
                .arg(efforts.join(QStringLiteral(", ")));
    }
    if (body.contains(QStringLiteral("thinking"))) {
        const QJsonObject t = body.value(QStringLiteral("thinking")).toObject();
        const QString type = t.value(QStringLiteral("type")).toString();
        if (type.isEmpty())
            return QStringLiteral("thinking must be an object with a type, e.g. "
                                  "{\"type\":\"enabled\",\"budget_tokens\":4096}");
        if (type == QLatin1String("enabled")) {
            const QJsonValue b = t.value(QStringLiteral("budget_tokens"));
            if (!b.isDouble() || b.toDouble() < 1024)
                return QStringLiteral(
                    "thinking of type enabled needs budget_tokens of at least 1024");
        }
    }
    return {};
}

QString checkExtraHeaders(const QJsonObject& headers) {
    static const QRegularExpression token(QStringLiteral("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"));
    for (auto it = headers.begin(); it != headers.end(); ++it) {
        const QString name = it.key();
        if (!token.match(name).hasMatch())
            return QStringLiteral("'%1' is not a valid header name").arg(name);
        if (isSecretHeader(name.toLatin1()))
            return QStringLiteral(
                       "the header '%1' carries a key: keys go to the key store (--key-env or "
                       "--key-stdin), never into the database")
                .arg(name);
        static const QStringList managed{QStringLiteral("host"), QStringLiteral("content-length"),
                                         QStringLiteral("content-type"),
                                         QStringLiteral("transfer-encoding"),
                                         QStringLiteral("connection")};
        if (managed.contains(name.toLower()))
            return QStringLiteral("the header '%1' is set by the program").arg(name);
        if (!it.value().isString())
            return QStringLiteral("the value of header '%1' must be a string").arg(name);
        const QString value = it.value().toString();
        if (value.contains(QLatin1Char('\r')) || value.contains(QLatin1Char('\n')))
            return QStringLiteral("the value of header '%1' holds a line break").arg(name);
    }
    return {};
}

QString checkRequestSettings(const QString& kind, const QJsonObject& s) {
    if (s.contains(QStringLiteral("token_field")) &&
        !s.value(QStringLiteral("token_field")).isString())
        return QStringLiteral("token_field must be a string");
    if (QString e = checkTokenField(kind, s.value(QStringLiteral("token_field")).toString());
        !e.isEmpty())
        return e;
    if (s.contains(QStringLiteral("extra_body")) &&
        !s.value(QStringLiteral("extra_body")).isObject())
        return QStringLiteral("extra_body must be a JSON object");
    if (s.contains(QStringLiteral("extra_headers")) &&
        !s.value(QStringLiteral("extra_headers")).isObject())
        return QStringLiteral("extra_headers must be a JSON object of names and string values");
    if (s.contains(QStringLiteral("stream")) && !s.value(QStringLiteral("stream")).isBool())
        return QStringLiteral("stream must be true or false");
    if (s.contains(QStringLiteral("temperature"))) {
        if (!s.value(QStringLiteral("temperature")).isDouble())
            return QStringLiteral("temperature must be a number");
        if (QString e = checkTemperature(kind, s.value(QStringLiteral("temperature")).toDouble());
            !e.isEmpty())
            return e;
    }
    QJsonObject body = s.value(QStringLiteral("extra_body")).toObject();
    for (const char* k : {"top_p", "seed"})
        if (s.contains(QString::fromLatin1(k)))
            body.insert(QString::fromLatin1(k), s.value(QString::fromLatin1(k)));
    if (QString e = checkExtraBody(kind, body); !e.isEmpty())
        return e;
    if (QString e = checkExtraHeaders(s.value(QStringLiteral("extra_headers")).toObject());
        !e.isEmpty())
        return e;
    for (const auto& [key, min, max] :
         {std::tuple{"timeout_ms", 1000.0, 86400000.0}, std::tuple{"max_attempts", 1.0, 20.0},
          std::tuple{"max_concurrent", 0.0, 4096.0}, std::tuple{"token_budget", 0.0, 1e15},
          std::tuple{"retry_base_delay_ms", 0.0, 600000.0}})
        if (QString e = checkNumber(s, key, min, max); !e.isEmpty())
            return e;
    return {};
}

std::optional<QJsonObject> parseJsonObjectArgument(const QString& text, const QString& what,
                                                   QString* error) {
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        *error =
            QStringLiteral("%1 must be a JSON object, e.g. {\"reasoning_effort\":\"high\"}%2")
                .arg(what,
                     pe.error != QJsonParseError::NoError
                         ? QStringLiteral(" (%1 at offset %2)").arg(pe.errorString()).arg(pe.offset)
                         : QString());
        return std::nullopt;
    }
    return doc.object();
}

HttpHeaders headersFromSettings(const QJsonObject& settings) {
    HttpHeaders out;
    const QJsonObject h = settings.value(QStringLiteral("extra_headers")).toObject();
    for (auto it = h.begin(); it != h.end(); ++it)
        out.append({it.key().toLatin1(), it.value().toString().toUtf8()});
    return out;
}

ChatRequest applyRequestOptions(ChatRequest r, const RequestOptions& provider,
                                const RequestOptions& model) {
    QJsonObject body = provider.extraBody;
    for (auto it = model.extraBody.begin(); it != model.extraBody.end(); ++it)
        body.insert(it.key(), it.value());
    for (auto it = r.extraBody.begin(); it != r.extraBody.end(); ++it)
        body.insert(it.key(), it.value());
    r.extraBody = body;
    if (!r.temperature)
        r.temperature = model.temperature ? model.temperature : provider.temperature;
    if (model.stream)
        r.stream = *model.stream;
    else if (provider.stream)
        r.stream = *provider.stream;
    if (r.tokenLimitField.isEmpty())
        r.tokenLimitField = !model.tokenField.isEmpty() ? model.tokenField : provider.tokenField;
    return r;
}

QUrl normalizedBaseUrl(const QString& kind, const QUrl& url, QString* note) {
    QUrl u = url;
    QString path = u.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (kind == QLatin1String("openai") && path.isEmpty()) {
        u.setPath(QStringLiteral("/v1"));
        if (note)
            *note = QStringLiteral("the base URL had no path; /v1 was added (%1)")
                        .arg(u.toDisplayString());
    } else if (isAnthropic(kind) && path == QLatin1String("/v1")) {
        u.setPath(QString());
        if (note)
            *note = QStringLiteral(
                "the Anthropic base URL is the host root (paths carry /v1); /v1 was removed");
    } else if (path != u.path()) {
        u.setPath(path);
    }
    return u;
}

QString missingV1Hint(const QUrl& baseUrl) {
    if (baseUrl.path().contains(QLatin1String("v1")))
        return {};
    return QStringLiteral(
               " (the base URL %1 has no /v1; OpenAI-compatible servers usually answer under "
               "/v1, e.g. %2/v1)")
        .arg(baseUrl.toDisplayString(QUrl::RemoveUserInfo),
             baseUrl.toDisplayString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash));
}

} // namespace kb::engine
