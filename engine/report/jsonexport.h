#pragma once
// JSON export: runs and their settings, environments, the leaderboard and every attempt with its
// evaluation, timing series (with samples when loaded) and findings. Field list: docs/exports.md.
//
// attemptsJson renders a snapshot already in memory (the GUI, small exports). writeJsonExport
// streams the same document from the database one attempt at a time, in memory bounded by one
// attempt (a million attempts in well under 500 MB), and adds every stored column of each
// attempt row by name, so that a column added by a later schema is exported without change here.

#include "reportdata.h"

#include <QByteArray>
#include <QString>

class QIODevice;

namespace kb::db {
class Connection;
}

namespace kb::report {

inline constexpr int kJsonExportVersion = 1;

QByteArray attemptsJson(const ReportData& data);

// Writes the export of the attempts `filter` selects to `out`. Returns the number of attempts
// written. Throws engine::Error for a filter that selects nothing that exists (as
// loadReportData) or when `out` cannot be written, db::Error for database failures.
qint64 writeJsonExport(db::Connection& conn, const ExportFilter& filter, QIODevice& out);

} // namespace kb::report
