#include "svgplot.h"

#include "metrics/stats.h"
#include "textformat.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

namespace kb::report {

namespace {

constexpr double kLeft = 64;
constexpr double kRight = 16;
constexpr double kTop = 30;
constexpr double kBottom = 44;

QString n(double v) {
    return QString::number(v, 'f', 1);
}

QString header(const QString& title, int width, int height) {
    return QStringLiteral("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" "
                          "viewBox=\"0 0 %1 %2\" role=\"img\" font-family=\"sans-serif\" "
                          "font-size=\"11\"><title>%3</title>"
                          "<rect x=\"0\" y=\"0\" width=\"%1\" height=\"%2\" fill=\"#ffffff\"/>"
                          "<text x=\"%4\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%3</text>")
        .arg(width)
        .arg(height)
        .arg(xmlEscape(title), n(kLeft));
}

QString text(double x, double y, const QString& s, const QString& anchor = QStringLiteral("middle"),
             const QString& extra = QString()) {
    return QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"%3\"%4>%5</text>")
        .arg(n(x), n(y), anchor, extra, xmlEscape(s));
}

QString line(double x1, double y1, double x2, double y2, const QString& style) {
    return QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\" %5/>")
        .arg(n(x1), n(y1), n(x2), n(y2), style);
}

QString speedupLabel(int exponent) {
    if (exponent >= 0)
        return QString::number(std::ldexp(1.0, exponent), 'g', 6) + QLatin1Char('x');
    return QStringLiteral("1/") + QString::number(std::ldexp(1.0, -exponent), 'g', 6) +
           QLatin1Char('x');
}

} // namespace

QString seriesColor(int index) {
    static const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    constexpr int size = static_cast<int>(sizeof(kPalette) / sizeof(kPalette[0]));
    return QString::fromLatin1(kPalette[((index % size) + size) % size]);
}

QString speedupDistributionSvg(const QString& title, const std::vector<SpeedupGroup>& groups,
                               int width, int height) {
    QString svg = header(title, width, height);
    const double plotW = width - kLeft - kRight;
    const double plotH = height - kTop - kBottom;

    std::vector<std::vector<double>> logs;
    double lo = 0; // log2 range, always holding 1x
    double hi = 0;
    bool any = false;
    for (const auto& g : groups) {
        std::vector<double> l;
        for (double v : g.values) {
            if (std::isfinite(v) && v > 0) {
                l.push_back(std::log2(v));
                lo = std::min(lo, l.back());
                hi = std::max(hi, l.back());
                any = true;
            }
        }
        std::sort(l.begin(), l.end());
        logs.push_back(std::move(l));
    }
    int eLo = static_cast<int>(std::floor(lo));
    int eHi = static_cast<int>(std::ceil(hi));
    if (eHi - eLo < 2) {
        eLo -= 1;
        eHi += 1;
    }
    const double span = eHi - eLo;
    auto yOf = [&](double log2v) { return kTop + plotH * (1.0 - (log2v - eLo) / span); };

    svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"none\" "
                          "stroke=\"#999999\"/>")
               .arg(n(kLeft), n(kTop), n(plotW), n(plotH));
    // Label every tick when there are few, every other one otherwise.
    const int step = span > 10 ? 2 : 1;
    for (int e = eLo; e <= eHi; e += step) {
        const double y = yOf(e);
        svg += line(kLeft - 4, y, kLeft + plotW, y, QStringLiteral("stroke=\"#e5e5e5\""));
        svg += text(kLeft - 6, y + 4, speedupLabel(e), QStringLiteral("end"));
    }
    svg += line(kLeft, yOf(0), kLeft + plotW, yOf(0),
                QStringLiteral("stroke=\"#333333\" stroke-dasharray=\"5,3\" class=\"one-x\""));
    svg += text(14, kTop + plotH / 2, QStringLiteral("speedup vs eager (log2)"),
                QStringLiteral("middle"),
                QStringLiteral(" transform=\"rotate(-90 14 %1)\"").arg(n(kTop + plotH / 2)));

    if (!any) {
        svg +=
            text(kLeft + plotW / 2, kTop + plotH / 2 - 8, QStringLiteral("no correct, timed tasks"),
                 QStringLiteral("middle"), QStringLiteral(" fill=\"#666666\""));
    }
    const double slot = groups.empty() ? plotW : plotW / static_cast<double>(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
        const double cx = kLeft + slot * (static_cast<double>(i) + 0.5);
        const QString color = seriesColor(static_cast<int>(i));
        const auto& l = logs[i];
        svg += text(cx, kTop + plotH + 16, groups[i].label);
        svg += text(cx, kTop + plotH + 30, QStringLiteral("n = %1").arg(l.size()),
                    QStringLiteral("middle"), QStringLiteral(" fill=\"#666666\""));
        if (l.empty())
            continue;
        const double boxW = std::min(60.0, slot * 0.5);
        const double q1 = *metrics::quantile(l, 0.25);
        const double q2 = *metrics::quantile(l, 0.5);
        const double q3 = *metrics::quantile(l, 0.75);
        svg +=
            line(cx, yOf(l.front()), cx, yOf(l.back()), QStringLiteral("stroke=\"%1\"").arg(color));
        svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"%5\" "
                              "fill-opacity=\"0.25\" stroke=\"%5\"/>")
                   .arg(n(cx - boxW / 2), n(yOf(q3)), n(boxW), n(std::max(1.0, yOf(q1) - yOf(q3))),
                        color);
        svg += line(cx - boxW / 2, yOf(q2), cx + boxW / 2, yOf(q2),
                    QStringLiteral("stroke=\"%1\" stroke-width=\"2\"").arg(color));
        for (size_t k = 0; k < l.size(); ++k) {
            // Deterministic spread so equal values stay visible.
            const double jitter = (static_cast<double>(k % 7) - 3.0) * boxW / 9.0;
            svg += QStringLiteral("<circle cx=\"%1\" cy=\"%2\" r=\"2.5\" fill=\"%3\"/>")
                       .arg(n(cx + jitter), n(yOf(l[k])), color);
        }
    }
    svg += QStringLiteral("</svg>");
    return svg;
}

QString fastPCurveSvg(const QString& title, const std::vector<Curve>& curves, int width,
                      int height) {
    QString svg = header(title, width, height);
    const double plotW = width - kLeft - kRight - 120; // legend on the right
    const double plotH = height - kTop - kBottom;
    double xMax = 0;
    for (const auto& c : curves) {
        for (const auto& p : c.points)
            xMax = std::max(xMax, p.first);
    }
    if (xMax <= 0)
        xMax = 1;
    auto xOf = [&](double x) { return kLeft + plotW * x / xMax; };
    auto yOf = [&](double y) { return kTop + plotH * (1.0 - y); };

    svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"none\" "
                          "stroke=\"#999999\"/>")
               .arg(n(kLeft), n(kTop), n(plotW), n(plotH));
    for (int pct = 0; pct <= 100; pct += 25) {
        const double y = yOf(pct / 100.0);
        svg += line(kLeft - 4, y, kLeft + plotW, y, QStringLiteral("stroke=\"#e5e5e5\""));
        svg +=
            text(kLeft - 6, y + 4, QString::number(pct) + QLatin1Char('%'), QStringLiteral("end"));
    }
    const int xTicks = static_cast<int>(std::floor(xMax * 2));
    for (int t = 0; t <= xTicks; ++t) {
        const double x = xOf(t * 0.5);
        svg += line(x, kTop + plotH, x, kTop + plotH + 4, QStringLiteral("stroke=\"#999999\""));
        svg += text(x, kTop + plotH + 16, QString::number(t * 0.5, 'g', 3));
    }
    if (xMax >= 1)
        svg += line(xOf(1), kTop, xOf(1), kTop + plotH,
                    QStringLiteral("stroke=\"#333333\" stroke-dasharray=\"2,3\" class=\"one-x\""));
    svg += text(kLeft + plotW / 2, kTop + plotH + 32,
                QStringLiteral("speedup threshold p (vs eager)"));
    svg += text(14, kTop + plotH / 2, QStringLiteral("fast_p"), QStringLiteral("middle"),
                QStringLiteral(" transform=\"rotate(-90 14 %1)\"").arg(n(kTop + plotH / 2)));

    for (size_t i = 0; i < curves.size(); ++i) {
        const QString color = seriesColor(static_cast<int>(i));
        QStringList pts;
        for (const auto& p : curves[i].points)
            pts << n(xOf(p.first)) + QLatin1Char(',') + n(yOf(std::clamp(p.second, 0.0, 1.0)));
        if (!pts.isEmpty()) {
            svg += QStringLiteral("<polyline fill=\"none\" stroke=\"%1\" stroke-width=\"2\" "
                                  "points=\"%2\"/>")
                       .arg(color, pts.join(QLatin1Char(' ')));
        }
        const double ly = kTop + 10 + 16 * static_cast<double>(i);
        const double lx = kLeft + plotW + 12;
        svg += line(lx, ly, lx + 18, ly,
                    QStringLiteral("stroke=\"%1\" stroke-width=\"2\"").arg(color));
        svg += text(lx + 24, ly + 4, curves[i].label, QStringLiteral("start"));
    }
    svg += QStringLiteral("</svg>");
    return svg;
}

} // namespace kb::report
