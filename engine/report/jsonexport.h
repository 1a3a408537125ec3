#pragma once
// JSON export of a snapshot: runs and their settings, environments, the leaderboard and every
// attempt with its evaluation, timing series (with samples when loaded) and findings.
// Field list: docs/exports.md.

#include "reportdata.h"

#include <QByteArray>

namespace kb::report {

inline constexpr int kJsonExportVersion = 1;

QByteArray attemptsJson(const ReportData& data);

} // namespace kb::report
