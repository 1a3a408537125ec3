#include "generationsettings.h"

#include "core/error.h"
#include "providers/prompt.h"
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
    if (!promptTemplateText.isEmpty()) {
        o.insert(QStringLiteral("prompt_template"), promptTemplate);
        o.insert(QStringLiteral("prompt_template_sha256"), promptTemplateSha256);
        o.insert(QStringLiteral("prompt_template_text"), promptTemplateText);
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
    s.promptTemplate = o.value(QStringLiteral("prompt_template")).toString();
    s.promptTemplateText = o.value(QStringLiteral("prompt_template_text")).toString();
    s.promptTemplateSha256 = o.value(QStringLiteral("prompt_template_sha256")).toString();
    return s;
}

GenerationSettings resolveGenerationSettings(const QString& mode, GenerationSettings s,
                                             const QString& suiteName) {
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
    // An agent works from its skill and system prompt; the chat modes from the template.
    if (mode != kModeAgent) {
        if (s.promptTemplateText.isEmpty()) {
            const PromptTemplate t =
                loadPromptTemplate(s.promptTemplate.isEmpty() ? defaultPromptTemplateFor(suiteName)
                                                              : s.promptTemplate);
            s.promptTemplate = t.name;
            s.promptTemplateText = t.text;
        }
        if (s.promptTemplate.isEmpty())
            s.promptTemplate = QStringLiteral("custom");
        s.promptTemplateSha256 = promptSha256(s.promptTemplateText);
    }
    return s;
}

} // namespace kb::engine
