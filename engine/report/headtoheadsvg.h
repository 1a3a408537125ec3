#pragma once
// The head-to-head scatter of a paired comparison as SVG: one dot per shared task at
// (speedup of B, speedup of A) on log2 axes, with the diagonal where both are equal.

#include "../metrics/paired.h"

#include <QString>

namespace kb::report {

QString headToHeadSvg(const QString& title, const metrics::PairedComparison& comparison,
                      int width = 420, int height = 380);

} // namespace kb::report
