#pragma once
// Candidates generated elsewhere, read against a suite's tasks before anything is stored:
//  - a KernelBench run folder, runs/<run>/level_<L>_problem_<id>_sample_<k>_kernel.py, one model
//    (the task is the suite's task of level L and KernelBench problem id <id>);
//  - a JSON-lines file of {"task", "model", "sample", "code"} objects, one candidate per line; the
//    task by id, by name or by "level" and "problem_id"; a line's model overrides the default one.
// Every file or line that cannot be used becomes one readable problem; the caller stores nothing
// while there is one.

#include "db/records.h"
#include "eval/evalsettings.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <vector>

namespace kb::db {
class Connection;
}

namespace kb::engine {

// One kernel file: KernelBench's are a few kilobytes.
inline constexpr qint64 kMaxCandidateFileBytes = 1024 * 1024;
// One JSON-lines file: 250 tasks x 100 samples of 8 KiB is 200 MiB.
inline constexpr qint64 kMaxCandidateJsonlBytes = 256 * 1024 * 1024;
// Entries of a run folder looked at.
inline constexpr int kMaxCandidateFolderEntries = 200000;

// The provider every imported model belongs to; it is not a model this program calls.
inline constexpr const char* kImportedProviderKind = "imported";
inline constexpr const char* kImportedMode = "imported";

struct ImportedCandidate {
    QString model;
    db::Id taskId = 0;
    QString taskKey;
    int sample = 0;
    QString code;
    QString origin; // "FILE" or "FILE:LINE"
};

struct CandidateImport {
    QString format; // "kernelbench-run" or "jsonl"
    QString source; // the absolute path read
    QList<ImportedCandidate> candidates;
    QStringList problems;
    QStringList models() const;
    int samplesPerTask() const; // the largest sample index + 1
};

// The KernelBench problem id of a task: N of a "L<level>_<N>" id (KernelBench folder and JSONL
// suites), else of an "N_Name.py" file name; -1 when it has none.
int kernelBenchProblemId(const db::TaskRow& task);

// Reads a run folder or a JSON-lines file. defaultModel may be empty when every JSON line names
// its model. Throws Error when the path cannot be read at all (missing, not a folder or regular
// file, too large, no candidate in it).
CandidateImport readCandidates(const QString& path, const QString& defaultModel,
                               const std::vector<db::TaskRow>& tasks);

struct ImportedRun {
    db::Id runId = 0;
    int attempts = 0;
};

// Stores, in one transaction, the imported models (under the "imported" provider), a run of
// the suite with the given evaluation settings, and one queued attempt per candidate with its
// code. Throws Error (or db::Error), storing nothing, when import.problems is not empty or
// anything cannot be stored.
ImportedRun storeImportedRun(db::Connection& conn, db::Id suiteId, const QString& runName,
                             EvalSettings settings, const CandidateImport& import);

} // namespace kb::engine
