#pragma once
// CSV exports: one row per attempt, and one row per timing sample. Columns are documented in
// docs/exports.md; rows end with "\n"; absent values are empty fields.

#include "reportdata.h"

#include <QByteArray>
#include <QStringList>

namespace kb::report {

QStringList attemptsCsvColumns();
QByteArray attemptsCsv(const ReportData& data);

QStringList timingSamplesCsvColumns();
// Needs a snapshot loaded with LoadOptions::timingSamples.
QByteArray timingSamplesCsv(const ReportData& data);

} // namespace kb::report
