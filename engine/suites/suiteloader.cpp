#include "suiteloader.h"

#include "core/error.h"
#include "core/paths.h"
#include "jsonlsuite.h"
#include "suitefile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace kb::engine {
namespace {

// Returns the file's text or a readable problem.
bool readTaskFile(const QString& path, QString& source, QString& problem) {
    QByteArray bytes;
    if (!readSuiteFile(path, kMaxTaskFileBytes, bytes, problem))
        return false;
    source = QString::fromUtf8(bytes);
    if (source.toUtf8() != bytes) {
        problem = QStringLiteral("%1: not valid UTF-8 text").arg(path);
        return false;
    }
    const QString why = SuiteLoader::checkTaskSource(source);
    if (!why.isEmpty()) {
        problem = QStringLiteral("%1: %2").arg(path, why);
        return false;
    }
    return true;
}

// A second task with a key already taken is a problem, not a task counted twice.
bool takeKey(QHash<QString, QString>& seen, const TaskDefinition& task, QStringList& problems) {
    const auto it = seen.constFind(task.key);
    if (it != seen.constEnd()) {
        problems << QStringLiteral(
                        "%1: task id '%2' is already used by %3; every task needs its own id")
                        .arg(task.path, task.key, it.value());
        return false;
    }
    seen.insert(task.key, task.path);
    return true;
}

bool isShippedSuite(const QString& dir) {
    const QString shipped = QFileInfo(sampleSuiteDir()).canonicalFilePath();
    return !shipped.isEmpty() && QFileInfo(dir).canonicalFilePath() == shipped;
}

} // namespace

QString SuiteLoader::checkTaskSource(const QString& source) {
    if (source.trimmed().isEmpty())
        return QStringLiteral("the task file is empty");
    if (source.contains(QChar(0)))
        return QStringLiteral("the task file contains NUL bytes (binary file?)");
    static const QRegularExpression model(QStringLiteral(R"(^class\s+Model\s*[(:])"),
                                          QRegularExpression::MultilineOption);
    static const QRegularExpression forward(QStringLiteral(R"(^\s+def\s+forward\s*\()"),
                                            QRegularExpression::MultilineOption);
    static const QRegularExpression inputs(QStringLiteral(R"(^def\s+get_inputs\s*\()"),
                                           QRegularExpression::MultilineOption);
    static const QRegularExpression init(QStringLiteral(R"(^def\s+get_init_inputs\s*\()"),
                                         QRegularExpression::MultilineOption);
    QStringList missing;
    if (!model.match(source).hasMatch())
        missing << QStringLiteral("a top-level 'class Model'");
    if (!forward.match(source).hasMatch())
        missing << QStringLiteral("a 'forward' method");
    if (!inputs.match(source).hasMatch())
        missing << QStringLiteral("a top-level 'def get_inputs()'");
    if (!init.match(source).hasMatch())
        missing << QStringLiteral("a top-level 'def get_init_inputs()'");
    if (!missing.isEmpty())
        return QStringLiteral("not a KernelBench-format task: missing ") +
               missing.join(QStringLiteral(", "));
    return {};
}

SuiteDefinition SuiteLoader::load(const QString& path, const QString& nameOverride) {
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        throw Error(
            QStringLiteral("'%1' does not exist; a suite is a folder (suite.json or KernelBench "
                           "level folders) or a JSON-lines file")
                .arg(path));
    if (info.exists() && !info.isDir())
        return loadJsonlSuite(path, nameOverride);
    return loadFolder(path, nameOverride);
}

SuiteDefinition SuiteLoader::loadFolder(const QString& dir, const QString& nameOverride) {
    const QFileInfo info(dir);
    if (!info.exists())
        throw Error(QStringLiteral("suite folder '%1' does not exist").arg(dir));
    if (!info.isDir())
        throw Error(QStringLiteral("'%1' is not a folder; a suite is a folder with suite.json or "
                                   "KernelBench level folders")
                        .arg(dir));
    const QString manifest = QDir(dir).filePath(QStringLiteral("suite.json"));
    SuiteDefinition suite =
        QFileInfo::exists(manifest) ? loadManifest(dir, manifest) : loadKernelBenchFolder(dir);
    if (!nameOverride.isEmpty())
        suite.name = nameOverride;
    suite.builtin = isShippedSuite(dir);
    if (suite.tasks.isEmpty()) {
        throw Error(QStringLiteral("no usable task in '%1'%2")
                        .arg(dir, suite.problems.isEmpty()
                                      ? QString()
                                      : QStringLiteral(":\n  ") +
                                            suite.problems.join(QStringLiteral("\n  "))));
    }
    return suite;
}

SuiteDefinition SuiteLoader::loadManifest(const QString& dir, const QString& manifestPath) {
    QByteArray manifest;
    QString problem;
    if (!readSuiteFile(manifestPath, kMaxManifestBytes, manifest, problem))
        throw Error(problem);
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(manifest, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        throw Error(QStringLiteral("%1 is not valid JSON: %2 at offset %3")
                        .arg(manifestPath, err.errorString())
                        .arg(err.offset));
    }
    const QJsonObject root = doc.object();
    SuiteDefinition suite;
    suite.name = root.value(QStringLiteral("name")).toString();
    suite.description = root.value(QStringLiteral("description")).toString();
    suite.source = QDir(dir).absolutePath();
    if (suite.name.isEmpty())
        throw Error(QStringLiteral("%1: the suite has no \"name\"").arg(manifestPath));
    const QJsonArray tasks = root.value(QStringLiteral("tasks")).toArray();
    QHash<QString, QString> seen;
    for (const auto& value : tasks) {
        const QJsonObject t = value.toObject();
        TaskDefinition task;
        task.key = t.value(QStringLiteral("id")).toString();
        task.name = t.value(QStringLiteral("name")).toString(task.key);
        task.level = t.value(QStringLiteral("level")).toInt(0);
        const QString file = t.value(QStringLiteral("file")).toString();
        if (task.key.isEmpty() || file.isEmpty()) {
            suite.problems
                << QStringLiteral("%1: a task entry lacks \"id\" or \"file\"").arg(manifestPath);
            continue;
        }
        if (task.level < 1 || task.level > 4) {
            suite.problems << QStringLiteral("%1: task '%2' has level %3; levels are 1 to 4")
                                  .arg(manifestPath, task.key)
                                  .arg(task.level);
            continue;
        }
        for (const auto& op : t.value(QStringLiteral("ops")).toArray())
            task.ops << op.toString();
        task.path = QDir(dir).absoluteFilePath(file);
        if (QFileInfo::exists(task.path) && !isInsideFolder(task.path, dir)) {
            // Its text would be stored and sent to model providers: only the suite's own files.
            suite.problems << QStringLiteral(
                                  "%1: task '%2' names a file outside the suite's folder %3 "
                                  "(links included); copy it into the folder")
                                  .arg(manifestPath, task.key, suite.source);
            continue;
        }
        if (!readTaskFile(task.path, task.source, problem)) {
            suite.problems << problem;
            continue;
        }
        // After reading: a file that cannot be used does not claim its id.
        if (!takeKey(seen, task, suite.problems))
            continue;
        suite.tasks << task;
    }
    return suite;
}

SuiteDefinition SuiteLoader::loadKernelBenchFolder(const QString& dir) {
    SuiteDefinition suite;
    suite.source = QDir(dir).absolutePath();
    suite.name = QFileInfo(dir).fileName();
    suite.description = QStringLiteral("KernelBench problems imported from %1").arg(suite.source);
    static const QRegularExpression levelDir(QStringLiteral(R"(^level(\d)$)"));
    static const QRegularExpression fileName(QStringLiteral(R"(^(\d+)_(.+)\.py$)"));

    QList<QPair<int, QString>> levelDirs;
    const auto match = levelDir.match(QFileInfo(dir).fileName());
    if (match.hasMatch()) {
        // The folder is itself one level.
        levelDirs.append({match.captured(1).toInt(), dir});
    } else {
        for (const auto& sub :
             QDir(dir).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const auto m = levelDir.match(sub.fileName());
            if (m.hasMatch())
                levelDirs.append({m.captured(1).toInt(), sub.absoluteFilePath()});
        }
    }
    if (levelDirs.isEmpty())
        throw Error(QStringLiteral("'%1' has no suite.json and no KernelBench level folders "
                                   "(level1, level2, ...)")
                        .arg(dir));
    QHash<QString, QString> seen;
    for (const auto& [level, path] : levelDirs) {
        if (level < 1 || level > 4) {
            suite.problems << QStringLiteral("%1: level %2 is outside 1 to 4").arg(path).arg(level);
            continue;
        }
        // System entries too (FIFOs, devices, broken links): they are reported, not skipped.
        auto files = QDir(path).entryInfoList({QStringLiteral("*.py")}, QDir::Files | QDir::System);
        std::sort(files.begin(), files.end(), [](const QFileInfo& a, const QFileInfo& b) {
            return a.fileName().section(QLatin1Char('_'), 0, 0).toInt() <
                   b.fileName().section(QLatin1Char('_'), 0, 0).toInt();
        });
        for (const auto& file : files) {
            const auto m = fileName.match(file.fileName());
            if (!m.hasMatch()) {
                suite.problems
                    << QStringLiteral("%1: file name is not N_Name.py").arg(file.filePath());
                continue;
            }
            TaskDefinition task;
            task.level = level;
            task.key = QStringLiteral("L%1_%2").arg(level).arg(m.captured(1));
            task.name = m.captured(2);
            task.path = file.absoluteFilePath();
            if (file.exists() && !isInsideFolder(task.path, dir)) {
                suite.problems << QStringLiteral(
                                      "%1: links to a file outside the suite's folder %2; "
                                      "copy it into the folder")
                                      .arg(task.path, suite.source);
                continue;
            }
            QString problem;
            if (!readTaskFile(task.path, task.source, problem)) {
                suite.problems << problem;
                continue;
            }
            if (!takeKey(seen, task, suite.problems))
                continue;
            suite.tasks << task;
        }
    }
    return suite;
}

} // namespace kb::engine
