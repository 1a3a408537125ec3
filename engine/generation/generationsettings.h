#pragma once
// How a run asks its models for candidates: the mode's limits (turns, agent budget), the
// request parameters and the skill an agent follows. Stored with the run (runs.settings_json,
// key "generation"), so the run can be read back and reproduced.

#include <QJsonObject>
#include <QString>
#include <optional>

namespace kb::engine {

inline const QString kModeOneShot = QStringLiteral("one-shot");
inline const QString kModeMultiTurn = QStringLiteral("multi-turn");
inline const QString kModeAgent = QStringLiteral("agent");

struct GenerationSettings {
    int turns = 3;                      // multi-turn: at most this many candidates per attempt
    int maxTurns = 200;                 // agent: at most this many model calls per attempt
    qint64 contextBudgetChars = 200000; // agent: older tool output is cut to stay under this
    double targetSpeedup =
        1.05; // agent and multi-turn stop once this fast (vs compile, else eager)
    int maxTokens = 16384;
    std::optional<double> temperature;
    bool stream = true;
    int callAttempts = 3; // a transient failure (cut stream, lost connection) is retried
    qint64 retryBaseDelayMs = 2000;
    int commandTimeoutSeconds = 120; // agent: run_command's time limit
    QString skillName;               // agent: the skill file followed
    QString skillText;               // its full text, stored so the run is reproducible
    // One-shot and multi-turn: the prompt template (a built-in's name or a file's base name),
    // its full text and the text's sha256, stored so that a re-launch asks exactly the same.
    QString promptTemplate;
    QString promptTemplateText;
    QString promptTemplateSha256;

    QJsonObject toJson() const;
    static GenerationSettings fromJson(const QJsonObject& o);
};

// Checks a run's mode and loads the skill (by name or file; agent runs default to
// kDefaultSkill) and the prompt template (by name or file; default: the suite's, see
// defaultPromptTemplateFor) so their texts are stored with the run; throws Error. A template
// text already set (a re-launch) is kept as it is.
GenerationSettings resolveGenerationSettings(const QString& mode, GenerationSettings settings,
                                             const QString& suiteName = {});

} // namespace kb::engine
