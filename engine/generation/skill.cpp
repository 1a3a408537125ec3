#include "skill.h"

#include "core/error.h"
#include "core/paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#ifndef KBSTUDIO_SOURCE_RESOURCES
#define KBSTUDIO_SOURCE_RESOURCES ""
#endif

namespace kb::engine {
namespace {

// One "key: value" line of the front matter; quoted values lose their quotes. The format's
// front matter is plain enough that a YAML library is not needed.
QString unquote(QString v) {
    v = v.trimmed();
    if (v.size() >= 2 && ((v.startsWith(QLatin1Char('"')) && v.endsWith(QLatin1Char('"'))) ||
                          (v.startsWith(QLatin1Char('\'')) && v.endsWith(QLatin1Char('\'')))))
        v = v.mid(1, v.size() - 2);
    return v;
}

} // namespace

std::optional<Skill> parseSkill(const QString& text, QString* error) {
    auto failWith = [error](const QString& why) -> std::optional<Skill> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    QString t = text;
    t.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    if (!t.startsWith(QStringLiteral("---\n")))
        return failWith(
            QStringLiteral("a skill file starts with YAML front matter between '---' lines"));
    const qsizetype end = t.indexOf(QStringLiteral("\n---"), 3);
    if (end < 0)
        return failWith(QStringLiteral("the front matter is not closed by a '---' line"));
    Skill s;
    s.text = text;
    const QStringList lines = t.mid(4, end - 4).split(QLatin1Char('\n'));
    for (const QString& line : lines) {
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        if (colon <= 0 || line.startsWith(QLatin1Char(' ')) || line.startsWith(QLatin1Char('#')))
            continue;
        const QString key = line.left(colon).trimmed();
        if (key == QLatin1String("name"))
            s.name = unquote(line.mid(colon + 1));
        else if (key == QLatin1String("description"))
            s.description = unquote(line.mid(colon + 1));
    }
    static const QRegularExpression validName(QStringLiteral("^[a-z0-9]+(-[a-z0-9]+)*$"));
    if (s.name.isEmpty())
        return failWith(QStringLiteral("the front matter has no name"));
    if (!validName.match(s.name).hasMatch())
        return failWith(
            QStringLiteral("the skill name '%1' is not lower-case words joined by hyphens")
                .arg(s.name));
    if (s.description.isEmpty())
        return failWith(QStringLiteral("the front matter has no description"));
    qsizetype bodyStart = t.indexOf(QLatin1Char('\n'), end + 4);
    s.body = bodyStart < 0 ? QString() : t.mid(bodyStart + 1).trimmed();
    return s;
}

QString skillsDir() {
    const QString env = qEnvironmentVariable("KBSTUDIO_SKILLS_DIR");
    if (!env.isEmpty())
        return QDir(env).absolutePath();
    const QString besideResources = resourcesDir() + QStringLiteral("/../skills");
    if (QFileInfo::exists(besideResources))
        return QDir(besideResources).absolutePath();
    return QDir(QString::fromUtf8(KBSTUDIO_SOURCE_RESOURCES) + QStringLiteral("/../skills"))
        .absolutePath();
}

QList<Skill> availableSkills() {
    QList<Skill> out;
    const QDir dir(skillsDir());
    for (const QString& sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        QFile f(dir.filePath(sub + QStringLiteral("/SKILL.md")));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        if (auto s = parseSkill(QString::fromUtf8(f.readAll()))) {
            s->path = f.fileName();
            out.append(*s);
        }
    }
    return out;
}

Skill loadSkill(const QString& nameOrFile) {
    QString path = nameOrFile;
    if (!QFileInfo(path).isFile())
        path = skillsDir() + QLatin1Char('/') + nameOrFile + QStringLiteral("/SKILL.md");
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        QStringList names;
        for (const auto& s : availableSkills())
            names << s.name;
        throw Error(QStringLiteral("no skill '%1' (a skill file, or one of: %2)")
                        .arg(nameOrFile, names.isEmpty() ? QStringLiteral("none found")
                                                         : names.join(QStringLiteral(", "))));
    }
    QString why;
    auto s = parseSkill(QString::fromUtf8(f.readAll()), &why);
    if (!s)
        throw Error(QStringLiteral("skill file %1: %2").arg(path, why));
    s->path = QFileInfo(path).absoluteFilePath();
    return *s;
}

} // namespace kb::engine
