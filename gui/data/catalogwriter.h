#pragma once
// The GUI's writes to the catalog: providers and models (add, edit, remove) and suite imports.
// Each opens the database read-write for the duration of the write and returns an empty string
// on success, else a readable error. API keys never pass through here (see KeyStore).

#include "db/records.h"

#include <QString>

namespace kb::gui {

// Inserts (id 0) or updates a provider by id. *id receives the provider's id.
QString saveProvider(const QString& databasePath, const db::ProviderRow& provider,
                     db::Id* id = nullptr);
// Removes a provider and its models; refused while any of its models has attempts.
QString removeProvider(const QString& databasePath, db::Id providerId);

// Inserts (id 0) or updates a model by id.
QString saveModel(const QString& databasePath, const db::ModelRow& model, db::Id* id = nullptr);
// Refused while the model has attempts (they would lose their model).
QString removeModel(const QString& databasePath, db::Id modelId);

// Imports a suite folder (suite.json or a KernelBench folder with level1/, level2/, ...).
// *summary receives "Imported 250 tasks into 'kernelbench' (3 files skipped: ...)".
QString importSuiteFolder(const QString& databasePath, const QString& folder,
                          const QString& nameOverride, QString* summary);

} // namespace kb::gui
