#pragma once
// Candidates generated elsewhere (kbstudio-cli import-candidates): a run whose attempts are
// exactly the imported (model, task, sample) triples, each with the code it came with. The run
// engine's generation step serves that code; everything after it is as for a generated attempt.

#include "records.h"
#include "sqlite.h"

#include <optional>
#include <string>
#include <vector>

namespace kb::db {

struct ImportedCandidateRow {
    Id attemptId = 0; // set when stored
    Id modelId = 0;
    Id taskId = 0;
    int sampleIndex = 0;
    std::string code;
    std::string codeHash;
    std::string origin; // the file (and line) it was read from
};

class ImportRepository {
public:
    explicit ImportRepository(Connection& conn)
        : m_conn(conn) {}

    // Creates the run, its models and one queued attempt per candidate, each with its code, in
    // one transaction (nested in the caller's, when there is one). Throws Error, storing
    // nothing, on a (model, task, sample) given twice or a model or task that does not exist.
    Id createImportedRun(const RunRow& run, std::vector<ImportedCandidateRow>& candidates);
    // The imported code of an attempt; nullopt when the attempt was not imported.
    std::optional<ImportedCandidateRow> importedCandidate(Id attemptId);
    // How many attempts of a run were imported.
    int importedCount(Id runId);

private:
    Connection& m_conn;
};

} // namespace kb::db
