#pragma once
// Keeps API keys out of everything that is written down: logs, errors, transcripts.

#include "providerprotocol.h"

namespace kb::engine {

// Authorization, x-api-key, api-key, proxy-authorization, x-goog-api-key.
bool isSecretHeader(const QByteArray& name);

// The secret values in a request's headers (a bearer token without its "Bearer ").
QList<QByteArray> secretsOf(const HttpHeaders& headers);

// The headers with every secret value replaced by "[redacted]", for logs.
HttpHeaders redactedHeaders(const HttpHeaders& headers);

// The text with every occurrence of each secret replaced by "[redacted]".
QByteArray redactSecrets(QByteArray text, const QList<QByteArray>& secrets);
QString redactSecrets(const QString& text, const QList<QByteArray>& secrets);

} // namespace kb::engine
