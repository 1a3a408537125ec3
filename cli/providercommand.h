#pragma once
// kbstudio-cli provider add|list|test and model add: register model providers and their
// models. API keys go to the key store (OS keychain or the 0600 key file), never the database.

#include <QStringList>

namespace kb::cli {

int providerCommand(const QStringList& args);
int modelCommand(const QStringList& args);

} // namespace kb::cli
