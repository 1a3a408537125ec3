#pragma once
// Reads task suites from disk: a folder with suite.json (the project's own format), a
// KernelBench problem folder (level1/, level2/, ... holding N_Name.py files), or a JSON-lines
// file of KernelBench's Hugging Face dataset (jsonlsuite.h).

#include "suite.h"

namespace kb::engine {

class SuiteLoader {
public:
    // A folder (see loadFolder) or a JSON-lines file (see loadJsonlSuite).
    static SuiteDefinition load(const QString& path, const QString& nameOverride = {});
    // Throws Error when the folder cannot be read as a suite at all. Task files that are
    // unusable are skipped and described in SuiteDefinition::problems.
    static SuiteDefinition loadFolder(const QString& dir, const QString& nameOverride = {});

    // Structural check of a KernelBench-format task source; an empty string means it looks
    // usable. The harness's validate-task does the full check by running it.
    static QString checkTaskSource(const QString& source);

private:
    static SuiteDefinition loadManifest(const QString& dir, const QString& manifestPath);
    static SuiteDefinition loadKernelBenchFolder(const QString& dir);
};

} // namespace kb::engine
