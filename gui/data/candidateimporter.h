#pragma once
// File → Import candidates…: candidates generated elsewhere (a KernelBench run folder or a
// JSON-lines file) become a new run of a suite, stored by the same engine code as
// `kbstudio-cli import-candidates`: every problem listed and nothing stored when any file or
// line cannot be used. Starting the stored run is the caller's (MainWindow::startRun).

#include "db/records.h"
#include "eval/evalsettings.h"

#include <QString>
#include <QStringList>

namespace kb::gui {

// What follows a stored import: evaluation in this window (in-process engine), in the background
// (detached kbstudio-cli run --resume), or nothing yet.
enum class ImportedRunStart { InWindow, InBackground, No };

struct CandidateImportRequest {
    QString path;      // a KernelBench run folder or a JSON-lines file
    QString model;     // required for a run folder; the default model of a JSON-lines file
    QString suiteName; // the suite whose tasks the candidates solve
    QString runName;   // empty: "<suite> / imported <models>", as the CLI names it
    QString device = QStringLiteral("auto"); // cpu, cuda or auto (asks the harness's Python)
};

struct CandidateImportResult {
    db::Id runId = 0; // 0 when nothing was stored
    int attempts = 0;
    QStringList models;
    QString runName;
    QString error;        // readable; empty on success
    QStringList problems; // the files and lines that cannot be used, one each
};

// The evaluation settings an imported run gets: those of `kbstudio-cli import-candidates`
// without options (device resolved, timing trials and time cap by device).
engine::EvalSettings importedRunSettings(const QString& device);

// Reads the candidates against the suite's tasks and stores the run with one queued attempt
// per candidate, in one transaction.
CandidateImportResult importCandidateRun(const QString& databasePath,
                                         const CandidateImportRequest& request);

} // namespace kb::gui
