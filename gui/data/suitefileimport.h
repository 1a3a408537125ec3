#pragma once
// Suites → Import JSON lines…: a suite from one JSON-lines file in the columns of KernelBench's
// Hugging Face dataset ({"name", "level", "problem_id", "code"} per line), read by the same
// engine code as `kbstudio-cli suite import FILE.jsonl`. As there, a file with any line that
// cannot be used is refused whole, every problem listed, and nothing is stored.

#include "db/records.h"

#include <QString>

namespace kb::gui {

// Imports the file into the database; an empty string on success, else a readable error (the
// engine's message, or the file's problems one per line). *summary receives "Imported 3
// task(s) into 'level_1'."; *suiteId the stored suite's id.
QString importSuiteJsonl(const QString& databasePath, const QString& file,
                         const QString& nameOverride, QString* summary, db::Id* suiteId = nullptr);

} // namespace kb::gui
