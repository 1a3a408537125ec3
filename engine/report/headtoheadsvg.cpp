#include "headtoheadsvg.h"

#include "svgplot.h"
#include "textformat.h"

#include <algorithm>
#include <cmath>

namespace kb::report {

namespace {

QString n(double v) {
    return QString::number(v, 'f', 1);
}

QString tickLabel(int exponent) {
    if (exponent >= 0)
        return QString::number(std::ldexp(1.0, exponent), 'g', 6) + QLatin1Char('x');
    return QStringLiteral("1/") + QString::number(std::ldexp(1.0, -exponent), 'g', 6) +
           QLatin1Char('x');
}

} // namespace

QString headToHeadSvg(const QString& title, const metrics::PairedComparison& c, int width,
                      int height) {
    constexpr double left = 64;
    constexpr double right = 16;
    constexpr double top = 30;
    constexpr double bottom = 44;
    int lo = -1;
    int hi = 1;
    for (const auto& t : c.tasks) {
        for (double v : {t.speedupA, t.speedupB}) {
            if (v > 0) {
                lo = std::min(lo, static_cast<int>(std::floor(std::log2(v))));
                hi = std::max(hi, static_cast<int>(std::ceil(std::log2(v))));
            }
        }
    }
    const double plotW = width - left - right;
    const double plotH = height - top - bottom;
    const auto xOf = [&](double v) { return left + (std::log2(v) - lo) / (hi - lo) * plotW; };
    const auto yOf = [&](double v) {
        return top + plotH - (std::log2(v) - lo) / (hi - lo) * plotH;
    };
    QString s =
        QStringLiteral(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" "
            "viewBox=\"0 0 %1 %2\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\">"
            "<title>%3</title><rect x=\"0\" y=\"0\" width=\"%1\" height=\"%2\" fill=\"#ffffff\"/>"
            "<text x=\"%4\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%3</text>")
            .arg(width)
            .arg(height)
            .arg(xmlEscape(title), n(left));
    const int step = hi - lo > 8 ? 2 : 1; // readable tick labels on wide ranges
    for (int e = lo; e <= hi; e += step) {
        const double v = std::ldexp(1.0, e);
        s += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%1\" y2=\"%3\" stroke=\"#e0e0e0\"/>")
                 .arg(n(xOf(v)), n(top), n(top + plotH));
        s += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%2\" stroke=\"#e0e0e0\"/>")
                 .arg(n(left), n(yOf(v)), n(left + plotW));
        s += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"middle\">%3</text>")
                 .arg(n(xOf(v)), n(top + plotH + 14), tickLabel(e));
        s += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"end\">%3</text>")
                 .arg(n(left - 4), n(yOf(v) + 4), tickLabel(e));
    }
    s +=
        QStringLiteral(
            "<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"none\" stroke=\"#888888\"/>")
            .arg(n(left), n(top), n(plotW), n(plotH));
    s += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\" stroke=\"#444444\" "
                        "stroke-dasharray=\"4 3\"/>")
             .arg(n(left), n(top + plotH), n(left + plotW), n(top));
    for (const auto& t : c.tasks) {
        const QString color = t.comparison == metrics::TaskComparison::Win ? seriesColor(0)
                              : t.comparison == metrics::TaskComparison::Loss
                                  ? seriesColor(1)
                                  : QStringLiteral("#999999");
        s += QStringLiteral(
                 "<circle cx=\"%1\" cy=\"%2\" r=\"3.5\" fill=\"%3\"><title>%4</title></circle>")
                 .arg(n(xOf(t.speedupB)), n(yOf(t.speedupA)), color,
                      xmlEscape(QString::fromStdString(t.taskId)));
    }
    s += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"middle\">%3</text>")
             .arg(n(left + plotW / 2), n(height - 8.0),
                  xmlEscape(QString::fromStdString(c.modelB) +
                            QStringLiteral(" (B): speedup vs eager")));
    s += QStringLiteral("<text x=\"14\" y=\"%1\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
                        "%1)\">%2</text>")
             .arg(n(top + plotH / 2),
                  xmlEscape(QString::fromStdString(c.modelA) + QStringLiteral(" (A)")));
    return s + QStringLiteral("</svg>");
}

} // namespace kb::report
