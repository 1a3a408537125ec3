#pragma once
// Eval results in the shape of KernelBench's runs/<run>/eval_results.json, so that its analysis
// scripts (benchmark_eval_analysis.py) read our runs:
//   { "<problem_id>": [ {sample_id, compiled, correctness, metadata, runtime, runtime_stats,
//                        ref_runtime, ref_runtime_stats}, ... ], ... }
// KernelBench keeps one model and one level per file. With several levels selected the file
// holds { "level1": {...}, "level2": {...} }, each value in the one-level shape.

#include "reportdata.h"

#include <QByteArray>
#include <QString>

namespace kb::report {

// The KernelBench problem id of a task: N of a "L<level>_<N>" key (KernelBench imports),
// otherwise the task key itself.
QString kernelBenchProblemId(const db::AttemptRow& attempt);

// Throws engine::Error when the snapshot holds attempts of more than one model.
QByteArray kernelBenchEvalResults(const ReportData& data);

} // namespace kb::report
