#include "prompt.h"

#include "core/error.h"
#include "core/paths.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#ifndef KBSTUDIO_SOURCE_RESOURCES
#define KBSTUDIO_SOURCE_RESOURCES ""
#endif

namespace kb::engine {

namespace {

QString formatTolerance(double t) {
    return QString::number(t, 'g', 3);
}

} // namespace

QString promptsDir() {
    const QString env = qEnvironmentVariable("KBSTUDIO_PROMPTS_DIR");
    if (!env.isEmpty())
        return QDir(env).absolutePath();
    const QString inResources = resourcesDir() + QStringLiteral("/prompts");
    if (QFileInfo::exists(inResources))
        return inResources;
    // A resources folder without templates (a test's stand-in): the source tree's.
    return QDir(QString::fromUtf8(KBSTUDIO_SOURCE_RESOURCES) + QStringLiteral("/prompts"))
        .absolutePath();
}

QStringList builtinPromptTemplates() {
    QStringList names;
    const QDir dir(promptsDir());
    for (const QFileInfo& f :
         dir.entryInfoList({QStringLiteral("*.prompt")}, QDir::Files, QDir::Name))
        names << f.completeBaseName();
    return names;
}

QString defaultPromptTemplateFor(const QString& suiteName) {
    return suiteName.startsWith(QLatin1String("kernelbench"), Qt::CaseInsensitive)
               ? kPromptKernelBench
               : kPromptStudio;
}

QString promptSha256(const QString& text) {
    return QString::fromLatin1(
        QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex());
}

PromptTemplate loadPromptTemplate(const QString& nameOrPath) {
    QString path = nameOrPath;
    const bool isFile = QFileInfo(path).isFile();
    if (!isFile)
        path = promptsDir() + QLatin1Char('/') + nameOrPath + QStringLiteral(".prompt");
    QFile f(path);
    if (nameOrPath.isEmpty() || !f.open(QIODevice::ReadOnly)) {
        const QStringList names = builtinPromptTemplates();
        throw Error(QStringLiteral("no prompt template '%1' (a template file, or one of: %2)")
                        .arg(nameOrPath, names.isEmpty() ? QStringLiteral("none found")
                                                         : names.join(QStringLiteral(", "))));
    }
    PromptTemplate t;
    t.text = QString::fromUtf8(f.readAll());
    if (t.text.trimmed().isEmpty())
        throw Error(QStringLiteral("the prompt template %1 is empty").arg(path));
    if (!t.text.contains(QStringLiteral("{task_source}")))
        throw Error(QStringLiteral("the prompt template %1 has no {task_source} placeholder: the "
                                   "model would never see the task")
                        .arg(path));
    t.name = isFile ? QFileInfo(path).completeBaseName() : nameOrPath;
    t.sha256 = promptSha256(t.text);
    t.path = QFileInfo(path).absoluteFilePath();
    return t;
}

QStringList promptPlaceholders() {
    return {QStringLiteral("task_source"),
            QStringLiteral("language"),
            QStringLiteral("extension_sources"),
            QStringLiteral("device"),
            QStringLiteral("precision"),
            QStringLiteral("atol"),
            QStringLiteral("rtol")};
}

RenderedPrompt renderPrompt(const QString& templateText, const PromptValues& values) {
    const bool cuda = values.device == QLatin1String("cuda");
    QString source = values.taskSource;
    if (!source.endsWith(QLatin1Char('\n')))
        source += QLatin1Char('\n');
    const QList<std::pair<QString, QString>> fills{
        {QStringLiteral("{language}"), cuda ? QStringLiteral("CUDA") : QStringLiteral("C++ CPU")},
        {QStringLiteral("{extension_sources}"),
         cuda ? QStringLiteral("cuda_sources") : QStringLiteral("cpp_sources")},
        {QStringLiteral("{device}"), values.device},
        {QStringLiteral("{precision}"), values.precision},
        {QStringLiteral("{atol}"), formatTolerance(values.atol)},
        {QStringLiteral("{rtol}"), formatTolerance(values.rtol)},
    };
    const auto fill = [&](const QString& text) -> QString {
        // The task goes in last and in one piece, so that braces in it are never read as
        // placeholders.
        QStringList parts = text.split(QStringLiteral("{task_source}"));
        for (QString& part : parts) {
            for (const auto& [key, value] : fills)
                part.replace(key, value);
        }
        return parts.join(source).trimmed() + QLatin1Char('\n');
    };
    QString text = templateText;
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    RenderedPrompt out;
    const QStringList lines = text.split(QLatin1Char('\n'));
    bool anyMarker = false;
    QString* section = nullptr;
    QString system;
    QString user;
    for (const QString& line : lines) {
        if (line.trimmed() == QLatin1String("@system")) {
            section = &system;
            anyMarker = true;
            continue;
        }
        if (line.trimmed() == QLatin1String("@user")) {
            section = &user;
            anyMarker = true;
            continue;
        }
        if (section) {
            *section += line;
            *section += QLatin1Char('\n');
        }
    }
    if (!anyMarker)
        user = text;
    if (!system.trimmed().isEmpty())
        out.system = fill(system);
    out.user = fill(user);
    return out;
}

QString flattenPrompt(const RenderedPrompt& prompt) {
    return prompt.system.isEmpty() ? prompt.user : prompt.system + QLatin1Char('\n') + prompt.user;
}

QString buildOneShotPrompt(const QString& taskSource, const QString& device) {
    PromptValues v;
    v.taskSource = taskSource;
    v.device = device;
    return flattenPrompt(renderPrompt(loadPromptTemplate(kPromptStudio).text, v));
}

QString extractCandidateCode(const QString& response) {
    static const QRegularExpression fence(QStringLiteral("```([A-Za-z0-9_+-]*)[ \\t]*\\n(.*?)```"),
                                          QRegularExpression::DotMatchesEverythingOption);
    QString lastPython;
    QString lastAny;
    int blocks = 0;
    auto it = fence.globalMatch(response);
    while (it.hasNext()) {
        const auto m = it.next();
        ++blocks;
        const QString lang = m.captured(1).toLower();
        lastAny = m.captured(2);
        if (lang == QLatin1String("python") || lang == QLatin1String("py"))
            lastPython = m.captured(2);
    }
    if (!lastPython.isEmpty())
        return lastPython;
    return blocks == 1 ? lastAny : QString();
}

} // namespace kb::engine
