#pragma once
// CSV exports: one row per attempt, one row per leaderboard cell, and one row per timing sample.
// Columns are documented in docs/exports.md; rows end with "\n"; absent values are empty fields.

#include "reportdata.h"

#include <QByteArray>
#include <QStringList>

namespace kb::report {

QStringList attemptsCsvColumns();
QByteArray attemptsCsv(const ReportData& data);

// One row per model and level (and "overall"): pass rate with its interval, pass@1 and pass@k
// (k = the most samples a task has), fast_1, the geomeans with their bootstrap intervals, and
// the run settings behind them.
QStringList leaderboardCsvColumns();
QByteArray leaderboardCsv(const ReportData& data);

QStringList timingSamplesCsvColumns();
// Needs a snapshot loaded with LoadOptions::timingSamples.
QByteArray timingSamplesCsv(const ReportData& data);

} // namespace kb::report
