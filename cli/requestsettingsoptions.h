#pragma once
// The request settings a provider or a model takes on the command line (provider add/set,
// model add/set): --token-field, --extra-body, --extra-headers, --stream, --retries,
// --timeout-ms, --temperature, --top-p, --seed, --reasoning-effort, --thinking-budget. Parsed into
// the settings JSON and checked as the engine checks it before a run.

#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>

namespace kb::cli {

// forModel: the model's options (no headers, retries or timeouts: those are the provider's).
void addRequestSettingsOptions(QCommandLineParser& parser, bool forModel);
// Merges the options that are set into `settings`; false with *error on a bad value.
bool applyRequestSettingsOptions(const QCommandLineParser& parser, const QString& kind,
                                 bool forModel, QJsonObject& settings, QString* error);

} // namespace kb::cli
