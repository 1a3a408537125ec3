#pragma once
// Before a suite starts: one short request to each model, built as the run's requests are
// (token limit and its field, temperature, extra body and headers, streaming, tools for an
// agent), so a wrong key, a parameter the model rejects or an unknown model stops the run
// before its first attempt instead of failing every attempt.

#include "db/sqlite.h"
#include "generationsettings.h"
#include "providers/keystore.h"

#include <QString>
#include <QStringList>

namespace kb::engine {

struct PreflightResult {
    QStringList checked; // provider/model of each model asked
    QStringList errors;  // "provider/model: HTTP 400 … from the provider: …", keys redacted
    bool ok() const { return errors.isEmpty(); }
};

// Blocks in a local event loop until every model answered or failed (at most timeoutMs each).
// Offline providers (demo, replay) are not asked. Throws Error on an unknown model reference.
PreflightResult runPreflight(db::Connection& conn, const QStringList& modelReferences,
                             const QString& mode, const GenerationSettings& settings,
                             const KeyStore* keys, int timeoutMs = 120000);

} // namespace kb::engine
