#pragma once
// Text helpers shared by the exporters: locale-independent numbers and escaping.

#include <QString>
#include <optional>

namespace kb::report {

// Shortest text that reads back as the same double ("0.1", "2.5", "1e-06"); never locale
// dependent. Non-finite values give "nan", "inf" or "-inf".
QString formatNumber(double value);
// formatNumber, or an empty string when there is no value.
QString formatOptional(const std::optional<double>& value);
// A value rounded to 1e-9 before formatting: for derived metrics (geomeans, rates) whose last
// bits depend on the maths library.
double roundDerived(double value);

// A speedup as people read it: two decimals from 1 up ("1.23x", "40.00x"), three significant
// digits below ("0.987x", "0.0123x"), so a small speedup never prints as "0.00x". `unit` is
// appended ("x" in text, "×" on screen).
QString formatSpeedupValue(double value, const QString& unit = QStringLiteral("x"));
// "1.23x [1.19, 1.27]" with the interval's bounds in the same digits; just the speedup when
// there is no interval.
QString formatSpeedupInterval(double value, std::optional<double> low, std::optional<double> high,
                              const QString& unit = QStringLiteral("x"));

// One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF; quotes doubled.
QString csvField(const QString& text);
// Text and attribute escaping for XML/XHTML (&, <, >, " and ').
QString xmlEscape(const QString& text);

} // namespace kb::report
