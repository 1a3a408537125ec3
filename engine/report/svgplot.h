#pragma once
// Self-contained SVG charts as text, for the HTML report (and, rasterised, the PDF). No Qt GUI:
// the engine stays Core-only. Every chart is deterministic for the same input.

#include <QString>
#include <utility>
#include <vector>

namespace kb::report {

// A fixed palette; index wraps around.
QString seriesColor(int index);

struct SpeedupGroup {
    QString label;              // model name
    std::vector<double> values; // speedups (> 0); others are ignored
};

// Box plots (quartiles by linear interpolation, whiskers at min and max) with every value as a
// dot, on a log2 speedup axis with a dashed line at 1x. One box per group.
QString speedupDistributionSvg(const QString& title, const std::vector<SpeedupGroup>& groups,
                               int width = 640, int height = 300);

struct Curve {
    QString label;
    std::vector<std::pair<double, double>> points; // (x, y), y in [0, 1]
};

// Line chart of fast_p against the threshold p (x linear, y 0..100 %), with a dotted line at p = 1.
QString fastPCurveSvg(const QString& title, const std::vector<Curve>& curves, int width = 640,
                      int height = 300);

} // namespace kb::report
