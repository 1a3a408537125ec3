#include "generationsettings.h"

#include "core/error.h"
#include "skill.h"

namespace kb::engine {

QJsonObject GenerationSettings::toJson() const {
    QJsonObject o{{QStringLiteral("turns"), turns},
                  {QStringLiteral("max_turns"), maxTurns},
                  {QStringLiteral("context_budget_chars"), static_cast<double>(contextBudgetChars)},
                  {QStringLiteral("target_speedup"), targetSpeedup},
                  {QStringLiteral("max_tokens"), maxTokens},
                  {QStringLiteral("stream"), stream},
                  {QStringLiteral("call_attempts"), callAttempts},
                  {QStringLiteral("retry_base_delay_ms"), static_cast<double>(retryBaseDelayMs)},
                  {QStringLiteral("command_timeout_seconds"), commandTimeoutSeconds}};
    if (temperature)
        o.insert(QStringLiteral("temperature"), *temperature);
    if (!skillName.isEmpty()) {
        o.insert(QStringLiteral("skill"), skillName);
        o.insert(QStringLiteral("skill_text"), skillText);
    }
    return o;
}

GenerationSettings GenerationSettings::fromJson(const QJsonObject& o) {
    GenerationSettings s;
    s.turns = o.value(QStringLiteral("turns")).toInt(s.turns);
    s.maxTurns = o.value(QStringLiteral("max_turns")).toInt(s.maxTurns);
    s.contextBudgetChars =
        static_cast<qint64>(o.value(QStringLiteral("context_budget_chars"))
                                .toDouble(static_cast<double>(s.contextBudgetChars)));
    s.targetSpeedup = o.value(QStringLiteral("target_speedup")).toDouble(s.targetSpeedup);
    s.maxTokens = o.value(QStringLiteral("max_tokens")).toInt(s.maxTokens);
    if (o.contains(QStringLiteral("temperature")))
        s.temperature = o.value(QStringLiteral("temperature")).toDouble();
    s.stream = o.value(QStringLiteral("stream")).toBool(s.stream);
    s.callAttempts = o.value(QStringLiteral("call_attempts")).toInt(s.callAttempts);
    s.retryBaseDelayMs =
        static_cast<qint64>(o.value(QStringLiteral("retry_base_delay_ms"))
                                .toDouble(static_cast<double>(s.retryBaseDelayMs)));
    s.commandTimeoutSeconds =
        o.value(QStringLiteral("command_timeout_seconds")).toInt(s.commandTimeoutSeconds);
    s.skillName = o.value(QStringLiteral("skill")).toString();
    s.skillText = o.value(QStringLiteral("skill_text")).toString();
    return s;
}

GenerationSettings resolveGenerationSettings(const QString& mode, GenerationSettings s) {
    if (mode != kModeOneShot && mode != kModeMultiTurn && mode != kModeAgent)
        throw Error(QStringLiteral("unknown mode '%1' (one-shot, multi-turn or agent)").arg(mode));
    if (s.turns < 1 || s.maxTurns < 1)
        throw Error(QStringLiteral("turns and max turns must be at least 1"));
    if (mode == kModeOneShot)
        s.turns = 1;
    if ((mode == kModeAgent || !s.skillName.isEmpty()) && s.skillText.isEmpty()) {
        const Skill skill = loadSkill(s.skillName.isEmpty() ? kDefaultSkill : s.skillName);
        s.skillName = skill.name;
        s.skillText = skill.text;
    }
    return s;
}

} // namespace kb::engine
