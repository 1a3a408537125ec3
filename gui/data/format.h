#pragma once
// How numbers, verdicts and settings read on screen. One place so every page agrees.

#include <QString>
#include <optional>
#include <string>

namespace kb::gui {

inline QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

// "1.84×", "40.0×", "123×", "0.987×", "0.0123×"; "n/a" when absent.
QString formatSpeedup(std::optional<double> speedup);
// "1.23× [1.19, 1.27]": the speedup with its 95 % interval, when it has one.
QString formatSpeedupInterval(std::optional<double> speedup, std::optional<double> low,
                              std::optional<double> high);
// "device-bound", "launch-bound (...)", "CPU"; the stored text otherwise.
QString regimeLabel(const std::string& regime);
// A fraction as a percentage with one decimal: 0.6 -> "60.0%"; "n/a" when absent.
QString formatPercent(std::optional<double> fraction);
// Milliseconds with three significant digits and a unit that fits ("0.512 ms", "12.3 µs").
QString formatMilliseconds(double ms);
// An ISO-8601 UTC timestamp as local time "2026-03-01 14:02:11"; empty stays empty.
QString formatTimestamp(const std::optional<std::string>& iso);
// A one-line summary of a run's evaluation settings JSON (device, precision, tolerances,
// trials, TF32, compile baseline, prompt template, program version). The secret seed is never
// shown.
QString settingsSummary(const std::string& settingsJson);
// "build_error" -> "build error".
QString verdictLabel(const std::string& verdict);

} // namespace kb::gui
