#pragma once
// Reads and checks the harness's result document (kbstudio.eval-result/1) and turns it into
// what the database stores. The summary statistics are recomputed here from the samples: the
// stored numbers are always derivable from the stored samples.

#include "db/records.h"
#include "evalsettings.h"

#include <QByteArray>
#include <QString>

namespace kb::engine {

struct TimingStats {
    double median = 0, mean = 0, std = 0, min = 0, max = 0;
};
TimingStats computeStats(const std::vector<double>& samples);

struct ParsedResult {
    bool ok = false;
    QString error; // why the document was refused
    // Filled when ok: every part of db::EvaluationRecord except attempt and candidate ids.
    db::EvaluationRecord record;
    QString device;
    QString deviceName;
    QString torchVersion;
};

inline constexpr const char* kResultSchema = "kbstudio.eval-result/1";

// Parses a result document; taskHash keys the baseline. Verdict, speedups and the plausibility
// check (excessive speedup => suspicious) are decided here, in the trusted engine.
ParsedResult parseHarnessResult(const QByteArray& json, const EvalSettings& settings,
                                const QString& taskHash);

} // namespace kb::engine
