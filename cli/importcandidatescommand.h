#pragma once
// kbstudio-cli import-candidates: candidates generated elsewhere, evaluated like generated ones.

#include <QStringList>

namespace kb::cli {

int importCandidatesCommand(const QStringList& args);

} // namespace kb::cli
