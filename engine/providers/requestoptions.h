#pragma once
// Per-provider and per-model request settings (providers.settings_json and models.settings_json):
// the token-limit field, extra body fields (reasoning_effort, Anthropic thinking, top_p, seed),
// extra headers, streaming, temperature. Every way in (CLI flags, the GUI dialogs, a stored row)
// goes through the same checks, so a setting the provider would reject mid-run is refused on
// entry with a message that names it.

#include "providerprotocol.h"

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QUrl>
#include <optional>

namespace kb::engine {

struct ChatRequest;

struct RequestOptions {
    QString tokenField;    // "" (the protocol's default), max_tokens, max_completion_tokens
    QJsonObject extraBody; // merged into the request body
    std::optional<double> temperature; // used when the run sets none
    std::optional<bool> stream;        // forces streaming on or off

    bool isEmpty() const;
    // Reads token_field (or the older use_max_completion_tokens), extra_body, temperature,
    // top_p, seed and stream of a settings object; top_p and seed go into extraBody.
    static RequestOptions fromSettings(const QJsonObject& settings);
};

// kind: openai or anthropic. Each returns an empty string when the value is acceptable, else a
// sentence saying what is wrong and what to do.
QString checkTokenField(const QString& kind, const QString& field);
QString checkTemperature(const QString& kind, double temperature);
QString checkExtraBody(const QString& kind, const QJsonObject& body);
QString checkExtraHeaders(const QJsonObject& headers);
// Checks every request setting of a provider's or a model's settings object, and the limits
// (timeout_ms, max_attempts, ...) where present.
QString checkRequestSettings(const QString& kind, const QJsonObject& settings);

// "a=1,b=x" is not accepted: JSON objects only, for the CLI's --extra-body and --extra-headers.
std::optional<QJsonObject> parseJsonObjectArgument(const QString& text, const QString& what,
                                                   QString* error);

HttpHeaders headersFromSettings(const QJsonObject& settings);

// The request with the options applied: what the request sets itself wins over the model's
// options, the model's over the provider's; extra body fields merge in that order; a stream
// setting of the model or provider overrides the request's.
ChatRequest applyRequestOptions(ChatRequest request, const RequestOptions& provider,
                                const RequestOptions& model);

// The base URL as it is used: an OpenAI-compatible URL without a path gets /v1 (as the GUI's
// connection test always did), an Anthropic URL ending in /v1 loses it (its paths carry v1/).
// *note says what was changed, for the user.
QUrl normalizedBaseUrl(const QString& kind, const QUrl& url, QString* note = nullptr);
// A hint to add to an HTTP 404 from an OpenAI-compatible provider whose base URL has no v1.
QString missingV1Hint(const QUrl& baseUrl);

} // namespace kb::engine
