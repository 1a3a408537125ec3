#include "format.h"

#include "eval/evalsettings.h"
#include "report/runsettingssummary.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <algorithm>
#include <cmath>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::Format", text);
}

// Three significant digits ("1.84", "40.0", "123", "0.987", "0.0123"): a small speedup never
// reads "0.00".
QString speedupDigits(double s) {
    if (s >= 100)
        return QString::number(s, 'f', 0);
    if (s >= 10)
        return QString::number(s, 'f', 1);
    if (s >= 1 || s <= 0)
        return QString::number(s, 'f', 2);
    const int decimals = std::min(12, 2 - static_cast<int>(std::floor(std::log10(s))));
    return QString::number(s, 'f', decimals);
}

} // namespace

QString formatSpeedup(std::optional<double> speedup) {
    if (!speedup || !std::isfinite(*speedup))
        return tr("n/a");
    return speedupDigits(*speedup) + QStringLiteral("×");
}

QString formatSpeedupInterval(std::optional<double> speedup, std::optional<double> low,
                              std::optional<double> high) {
    QString text = formatSpeedup(speedup);
    if (speedup && low && high && std::isfinite(*low) && std::isfinite(*high))
        text += QStringLiteral(" [%1, %2]").arg(speedupDigits(*low), speedupDigits(*high));
    return text;
}

QString regimeLabel(const std::string& regime) {
    if (regime == "device-bound")
        return tr("device-bound");
    if (regime == "launch-bound")
        return tr("launch-bound (CPU launch overhead dominates)");
    if (regime == "cpu")
        return tr("CPU");
    return QString::fromStdString(regime);
}

QString formatPercent(std::optional<double> fraction) {
    if (!fraction || !std::isfinite(*fraction))
        return tr("n/a");
    return QString::number(*fraction * 100.0, 'f', 1) + QLatin1Char('%');
}

QString formatMilliseconds(double ms) {
    if (!std::isfinite(ms))
        return tr("n/a");
    if (std::abs(ms) < 1.0)
        return QString::number(ms * 1000.0, 'g', 3) + QStringLiteral(" µs");
    if (std::abs(ms) >= 1000.0)
        return QString::number(ms / 1000.0, 'g', 3) + QStringLiteral(" s");
    return QString::number(ms, 'g', 3) + QStringLiteral(" ms");
}

QString formatTimestamp(const std::optional<std::string>& iso) {
    if (!iso || iso->empty())
        return {};
    QDateTime when = QDateTime::fromString(qs(*iso), Qt::ISODateWithMs);
    if (!when.isValid())
        when = QDateTime::fromString(qs(*iso), Qt::ISODate);
    if (!when.isValid())
        return qs(*iso);
    return when.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString settingsSummary(const std::string& settingsJson) {
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(settingsJson));
    if (!doc.isObject() || doc.object().isEmpty())
        return {};
    const auto s = engine::EvalSettings::fromJson(doc.object());
    QStringList parts;
    parts << s.device << s.precision;
    parts << tr("tol %1/%2").arg(QString::number(s.atol, 'g', 2), QString::number(s.rtol, 'g', 2));
    parts << tr("%1 checks").arg(s.correctnessTrials);
    parts << tr("%1 timed").arg(s.timingTrials);
    parts << (s.allowTf32 ? tr("TF32 on") : tr("TF32 off"));
    parts << (s.compileBaseline ? tr("compile %1").arg(s.compileMode) : tr("no compile baseline"));
    const auto facts = report::runSettingsFacts(doc.object());
    parts << tr("prompt %1").arg(report::settingsFact(facts, QStringLiteral("prompt_template")));
    parts << tr("kbstudio %1").arg(s.programVersion);
    return parts.join(QStringLiteral(" · "));
}

QString verdictLabel(const std::string& verdict) {
    QString label = qs(verdict);
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    return label;
}

} // namespace kb::gui
