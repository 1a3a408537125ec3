#pragma once
// The generation step of an imported attempt: no model is asked. The code stored by
// kbstudio-cli import-candidates is recorded as the attempt's one turn and handed on as its
// candidate, to be checked, built and evaluated like any generated one.

#include "db/importrepository.h"
#include "generation/generationsession.h"

#include <optional>

namespace kb::engine {

class ImportedSession : public GenerationSession {
    Q_OBJECT
public:
    // imported: the attempt's stored code; nullopt when the attempt has none (an imported model
    // put into a run of its own), which ends the attempt with no candidate.
    ImportedSession(GenerationContext context, std::optional<db::ImportedCandidateRow> imported,
                    QObject* parent = nullptr);
    void start() override;

private:
    std::optional<db::ImportedCandidateRow> m_imported;
};

} // namespace kb::engine
