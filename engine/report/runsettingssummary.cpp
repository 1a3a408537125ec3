#include "runsettingssummary.h"

#include "eval/evalsettings.h"
#include "generation/generationsettings.h"

#include <QJsonDocument>

namespace kb::report {

namespace {

QString tolerance(double t) {
    return QString::number(t, 'g', 3);
}

QString sampleCount(const QJsonObject& settings) {
    return QString::number(settings.value(QStringLiteral("samples")).toInt(1));
}

} // namespace

QList<SettingsFact> runSettingsFacts(const QJsonObject& settings, const QString& mode) {
    const auto eval = engine::EvalSettings::fromJson(settings);
    const auto generation = engine::GenerationSettings::fromJson(
        settings.value(QStringLiteral("generation")).toObject());
    QList<SettingsFact> facts;
    facts.append({QStringLiteral("precision"), QStringLiteral("precision"), eval.precision});
    facts.append(
        {QStringLiteral("tolerance"), QStringLiteral("tolerance"),
         QStringLiteral("atol %1, rtol %2%3")
             .arg(tolerance(eval.atol), tolerance(eval.rtol),
                  eval.toleranceExplicit ? QStringLiteral(" (set explicitly)") : QString())});
    facts.append({QStringLiteral("tf32"), QStringLiteral("TF32"),
                  eval.allowTf32 ? QStringLiteral("on") : QStringLiteral("off")});
    facts.append({QStringLiteral("compile_mode"), QStringLiteral("compile mode"),
                  eval.compileBaseline ? eval.compileMode : QStringLiteral("no compile baseline")});
    QString prompt;
    if (!generation.promptTemplateText.isEmpty()) {
        prompt = QStringLiteral("%1 (sha256 %2)")
                     .arg(generation.promptTemplate, generation.promptTemplateSha256.left(12));
    } else if (mode == QLatin1String("agent")) {
        prompt = generation.skillName.isEmpty()
                     ? QStringLiteral("agent system prompt")
                     : QStringLiteral("agent, skill %1").arg(generation.skillName);
    } else {
        prompt = QStringLiteral("kbstudio (built-in, before templates were stored)");
    }
    facts.append({QStringLiteral("prompt_template"), QStringLiteral("prompt template"), prompt});
    facts.append(
        {QStringLiteral("samples"), QStringLiteral("samples per task"), sampleCount(settings)});
    facts.append({QStringLiteral("device"), QStringLiteral("device"), eval.device});
    facts.append(
        {QStringLiteral("program_version"), QStringLiteral("kbstudio"), eval.programVersion});
    return facts;
}

QList<SettingsFact> runSettingsFacts(const db::RunRow& run) {
    return runSettingsFacts(
        QJsonDocument::fromJson(QByteArray::fromStdString(run.settingsJson)).object(),
        QString::fromStdString(run.mode));
}

QString settingsFact(const QList<SettingsFact>& facts, const QString& key) {
    for (const auto& f : facts) {
        if (f.key == key)
            return f.value;
    }
    return {};
}

QString runSettingsLine(const db::RunRow& run) {
    QStringList parts;
    for (const auto& f : runSettingsFacts(run))
        parts << f.label + QLatin1Char(' ') + f.value;
    return parts.join(QStringLiteral("; "));
}

QString runSettingsText(const std::vector<db::RunRow>& runs) {
    QString s;
    for (const auto& r : runs)
        s += QStringLiteral("Run %1 (%2): %3\n")
                 .arg(r.id)
                 .arg(QString::fromStdString(r.name), runSettingsLine(r));
    return s;
}

QString runSettingsMarkdown(const std::vector<db::RunRow>& runs) {
    if (runs.empty())
        return {};
    QString s = QStringLiteral("Settings:\n\n");
    for (const auto& r : runs) {
        s += QStringLiteral("- Run %1 (%2, %3): %4\n")
                 .arg(r.id)
                 .arg(QString::fromStdString(r.name), QString::fromStdString(r.mode),
                      runSettingsLine(r));
    }
    return s + QLatin1Char('\n');
}

} // namespace kb::report
