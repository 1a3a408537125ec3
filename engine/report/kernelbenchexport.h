#pragma once
// Eval results in the shape of KernelBench's runs/<run>/eval_results.json, so that its analysis
// scripts (benchmark_eval_analysis.py) read our runs:
//   { "<problem_id>": [ {sample_id, compiled, correctness, metadata, runtime, runtime_stats,
//                        ref_runtime, ref_runtime_stats}, ... ], ... }
// KernelBench keeps one model and one level per file. With several levels selected the file
// holds { "level1": {...}, "level2": {...} }, each value in the one-level shape.
// Every model of a run at once: one runs/<run_name>/eval_results.json per model and level, the
// layout KernelBench's scripts read (run_name=<model>_level<L> level=<L>), see
// kernelBenchRunFiles.

#include "reportdata.h"

#include <QByteArray>
#include <QString>

namespace kb::report {

// The KernelBench problem id of a task: N of a "L<level>_<N>" key (KernelBench imports),
// otherwise the task key itself.
QString kernelBenchProblemId(const db::AttemptRow& attempt);

// Throws engine::Error when the snapshot holds attempts of more than one model.
QByteArray kernelBenchEvalResults(const ReportData& data);

// One KernelBench run folder: <runName>/eval_results.json holds the attempts of one model on one
// level, in the one-level shape.
struct KernelBenchRunFile {
    QString runName; // "<model>_level<L>", the model's name made safe for a folder name
    QString model;
    int level = 1;
    QByteArray evalResults;
};

// Every model and level of the snapshot, ordered by model name, then level. Run names are
// unique: models whose safe names would meet get "_2", "_3", ... in model-name order.
QList<KernelBenchRunFile> kernelBenchRunFiles(const ReportData& data);

// The index written next to the run folders (kbstudio_runs.json): which folder holds which
// model and level, and how many problems and samples.
QByteArray kernelBenchRunIndex(const QList<KernelBenchRunFile>& files);

// Writes <dir>/<run_name>/eval_results.json for every model and level, and the index, each file
// whole or not at all. dir is created when missing; a run folder there already is refused, as is
// an empty snapshot. Returns an empty string on success, else a readable message; *written gets
// the paths written.
QString writeKernelBenchRuns(const QString& dir, const ReportData& data,
                             QStringList* written = nullptr);

} // namespace kb::report
