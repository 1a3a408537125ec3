#pragma once
// A suite from one JSON-lines file, one task per line, in the columns of KernelBench's Hugging
// Face dataset (ScalingIntelligence/KernelBench): {"name", "level", "problem_id", "code"}. Its
// Parquet files need a Parquet reader that Debian 12 does not package; the dataset's JSON
// export (lines, or one array of the same objects) is read instead, see docs/import.md.

#include "suite.h"

#include <QtGlobal>

namespace kb::engine {

// The whole file: a JSON-lines dump of KernelBench's four levels is about 1 MiB.
inline constexpr qint64 kMaxJsonlSuiteBytes = 64 * 1024 * 1024;

// Task ids are "L<level>_<problem_id>", as for a KernelBench folder (levelN/<id>_<Name>.py), so
// both imports of the same problems agree; an optional "id" field overrides it. Lines that cannot
// be used are described in SuiteDefinition::problems, with their line numbers. Throws Error when
// the file cannot be read as a suite at all (missing, not a regular file, too large, Parquet,
// not UTF-8, no usable task).
SuiteDefinition loadJsonlSuite(const QString& file, const QString& nameOverride = {});

} // namespace kb::engine
