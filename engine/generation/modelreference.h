#pragma once
// A model named by the user: "provider/model" or the model's bare name. Model names may hold
// '/' themselves (Qwen/Qwen2.5-Coder, OpenRouter's openai/gpt-4o), so both readings are tried:
// a provider prefix that names a provider with that model wins; a bare name must be unique.

#include "db/catalogrepository.h"
#include "db/records.h"

#include <QString>
#include <vector>

namespace kb::engine {

// "provider/model" for a model row.
QString qualifiedModelName(const db::ModelRow& model);
// The one model the reference names; throws Error when none does ("no model ..., known: ...")
// or when a bare name is ambiguous ("... is offered by 2 providers: a/m, b/m; write one").
db::ModelRow resolveModelReference(const std::vector<db::ModelRow>& models,
                                   const QString& reference);
db::ModelRow resolveModelReference(db::CatalogRepository& catalog, const QString& reference);

} // namespace kb::engine
