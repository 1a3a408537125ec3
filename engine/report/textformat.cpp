#include "textformat.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace kb::report {

QString formatNumber(double value) {
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    std::array<char, 64> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return QString::fromLatin1(buffer.data(), result.ptr - buffer.data());
}

QString formatOptional(const std::optional<double>& value) {
    return value ? formatNumber(*value) : QString();
}

double roundDerived(double value) {
    if (!std::isfinite(value))
        return value;
    const double rounded = std::round(value * 1e9) / 1e9;
    return rounded == 0.0 ? 0.0 : rounded; // no "-0"
}

namespace {
QString speedupDigits(double value) {
    if (!std::isfinite(value))
        return formatNumber(value);
    if (std::abs(value) >= 1.0 || value == 0.0)
        return QString::number(value, 'f', 2);
    // Three significant digits without an exponent: 0.987, 0.0123, 0.000456.
    const int decimals =
        std::min(12, 2 - static_cast<int>(std::floor(std::log10(std::abs(value)))));
    return QString::number(value, 'f', decimals);
}
} // namespace

QString formatSpeedupValue(double value, const QString& unit) {
    return speedupDigits(value) + unit;
}

QString formatSpeedupInterval(double value, std::optional<double> low, std::optional<double> high,
                              const QString& unit) {
    QString text = formatSpeedupValue(value, unit);
    if (low && high)
        text += QStringLiteral(" [") + speedupDigits(*low) + QStringLiteral(", ") +
                speedupDigits(*high) + QLatin1Char(']');
    return text;
}

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r'))) {
        return text;
    }
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString xmlEscape(const QString& text) {
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        switch (c.unicode()) {
        case '&':
            out += QStringLiteral("&amp;");
            break;
        case '<':
            out += QStringLiteral("&lt;");
            break;
        case '>':
            out += QStringLiteral("&gt;");
            break;
        case '"':
            out += QStringLiteral("&quot;");
            break;
        case '\'':
            out += QStringLiteral("&#39;");
            break;
        default:
            // Control characters other than tab/newline are not allowed in XML 1.0.
            if (c.unicode() < 0x20 && c != QLatin1Char('\n') && c != QLatin1Char('\t') &&
                c != QLatin1Char('\r'))
                out += QChar(0xFFFD);
            else
                out += c;
        }
    }
    return out;
}

} // namespace kb::report
