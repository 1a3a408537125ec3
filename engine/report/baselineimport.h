#pragma once
// Imports KernelBench's published baseline timings (results/timing/<GPU>/baseline_time_torch*.json,
// { "level1": { "19_ReLU.py": { "mean": ms, "std", "min", "max", "num_trials", "hardware",
// "device" } } }) into the baselines table, keyed like our own baselines by the task's source
// hash. See docs/exports.md for the mapping.

#include "db/records.h"

#include <QString>
#include <QStringList>

namespace kb::db {
class Connection;
}

namespace kb::report {

inline constexpr const char* kPublishedSettingsPrefix = "kernelbench-published";

struct BaselineImportOptions {
    // KernelBench problem folder (level1/, level2/, ...) whose sources give the task hashes.
    // Empty: the hashes of the tasks already in the database (matched by level, problem number
    // and name, e.g. key "L1_19" named "ReLU" for 19_ReLU.py).
    QString problemsDir;
};

struct BaselineImportResult {
    int files = 0;              // baseline JSON files read
    int entries = 0;            // problem entries in them
    int stored = 0;             // baseline rows inserted or updated
    int unmatched = 0;          // entries without a known task
    QStringList devices;        // GPU folder names imported
    QStringList unmatchedNames; // "level3/1_MLP.py", at most the first 20
};

// The settings key of a file: "kernelbench-published;eager" for baseline_time_torch.json,
// "kernelbench-published;compile-<backend>-<mode>" for baseline_time_torch_compile_<...>.json;
// empty for other names.
QString publishedSettingsKey(const QString& fileName);

// dir is one GPU folder (holding baseline_time_torch*.json) or a folder of GPU folders.
// Everything is stored in one transaction. Throws engine::Error for an unreadable folder or
// file, or a file that is not in the published shape.
BaselineImportResult importPublishedBaselines(db::Connection& conn, const QString& dir,
                                              const BaselineImportOptions& options = {});

} // namespace kb::report
