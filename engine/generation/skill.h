#pragma once
// Skill files in the Agent Skills format: YAML front matter with `name` and `description`,
// then a Markdown body. An agent run follows one; its text is stored with the run.

#include <QList>
#include <QString>
#include <optional>

namespace kb::engine {

inline const QString kDefaultSkill = QStringLiteral("cuda-kernel-optimization");

struct Skill {
    QString name;
    QString description;
    QString body; // the Markdown after the front matter
    QString text; // the whole file as read
    QString path;
};

// Parses a skill file's text; nullopt with *error set when the front matter is missing or
// lacks name or description.
std::optional<Skill> parseSkill(const QString& text, QString* error = nullptr);

// $KBSTUDIO_SKILLS_DIR, else the skills folder next to the resources folder (installed or
// source tree).
QString skillsDir();
// The skills found under skillsDir(): <dir>/<name>/SKILL.md.
QList<Skill> availableSkills();
// A skill by name (from skillsDir()) or by the path of a skill file; throws Error.
Skill loadSkill(const QString& nameOrFile);

} // namespace kb::engine
