#include "jsonlsuite.h"

#include "core/error.h"
#include "suitefile.h"
#include "suiteloader.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>

namespace kb::engine {
namespace {

// A whole number from a JSON number or a string of digits (dumps differ on that).
bool wholeNumber(const QJsonValue& v, qint64& out) {
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) > 1e15)
            return false;
        out = static_cast<qint64>(d);
        return true;
    }
    if (v.isString()) {
        bool ok = false;
        out = v.toString().trimmed().toLongLong(&ok);
        return ok;
    }
    return false;
}

// One record of the file, `where` being "FILE:LINE" (or "FILE: entry N" for an array).
bool readTask(const QJsonObject& o, const QString& where, TaskDefinition& task, QString& problem) {
    const auto bad = [&](const QString& why) {
        problem = QStringLiteral("%1: %2").arg(where, why);
        return false;
    };
    const QJsonValue code = o.value(QStringLiteral("code"));
    if (!code.isString())
        return bad(QStringLiteral("no \"code\" string (the task's PyTorch program)"));
    task.source = code.toString();
    if (task.source.toUtf8().size() > kMaxTaskFileBytes)
        return bad(QStringLiteral("the code is larger than the %1 MiB a task may have")
                       .arg(kMaxTaskFileBytes / (1024 * 1024)));
    qint64 level = 0;
    if (!wholeNumber(o.value(QStringLiteral("level")), level) || level < 1 || level > 4)
        return bad(QStringLiteral("\"level\" must be a whole number from 1 to 4"));
    task.level = static_cast<int>(level);
    qint64 problemId = -1;
    const bool hasProblemId = o.contains(QStringLiteral("problem_id"));
    if (hasProblemId &&
        (!wholeNumber(o.value(QStringLiteral("problem_id")), problemId) || problemId < 0))
        return bad(QStringLiteral("\"problem_id\" must be a whole number, 0 or more"));
    const QJsonValue id = o.value(QStringLiteral("id"));
    if (!id.isUndefined() && (!id.isString() || id.toString().trimmed().isEmpty()))
        return bad(QStringLiteral("\"id\", when given, must be a non-empty string"));
    if (id.isString())
        task.key = id.toString().trimmed();
    else if (hasProblemId)
        task.key = QStringLiteral("L%1_%2").arg(level).arg(problemId);
    else
        return bad(QStringLiteral("no \"problem_id\" (or \"id\") to name the task by"));
    // KernelBench's names are file names ("19_ReLU.py"); the task's name is what follows the id,
    // as for a KernelBench folder.
    QString name = o.value(QStringLiteral("name")).toString().trimmed();
    if (name.endsWith(QLatin1String(".py")))
        name.chop(3);
    static const QRegularExpression numbered(QStringLiteral(R"(^(\d+)_(.+)$)"));
    const auto m = numbered.match(name);
    if (m.hasMatch() && (!hasProblemId || m.captured(1).toLongLong() == problemId))
        name = m.captured(2);
    task.name = name.isEmpty() ? task.key : name;
    for (const auto& op : o.value(QStringLiteral("ops")).toArray())
        task.ops << op.toString();
    task.path = where;
    const QString why = SuiteLoader::checkTaskSource(task.source);
    if (!why.isEmpty())
        return bad(why);
    return true;
}

void addTask(SuiteDefinition& suite, QHash<QString, QString>& seen, const QJsonValue& value,
             const QString& where) {
    if (!value.isObject()) {
        suite.problems << QStringLiteral("%1: not a JSON object").arg(where);
        return;
    }
    TaskDefinition task;
    QString problem;
    if (!readTask(value.toObject(), where, task, problem)) {
        suite.problems << problem;
        return;
    }
    const auto it = seen.constFind(task.key);
    if (it != seen.constEnd()) {
        suite.problems << QStringLiteral(
                              "%1: task id '%2' is already used by %3; every task needs its own id")
                              .arg(where, task.key, it.value());
        return;
    }
    seen.insert(task.key, where);
    suite.tasks << task;
}

} // namespace

SuiteDefinition loadJsonlSuite(const QString& file, const QString& nameOverride) {
    if (!QFileInfo::exists(file))
        throw Error(QStringLiteral("suite file '%1' does not exist").arg(file));
    QByteArray bytes;
    QString problem;
    if (!readSuiteFile(file, kMaxJsonlSuiteBytes, bytes, problem))
        throw Error(problem);
    if (bytes.startsWith("PAR1")) {
        throw Error(
            QStringLiteral(
                "%1 is a Parquet file. Debian 12 packages no Parquet reader (no pyarrow, no "
                "fastparquet), so suites are read from the dataset's JSON export instead: "
                "one JSON object per line with \"name\", \"level\", \"problem_id\" and "
                "\"code\" (see docs/import.md for the one-line conversion)")
                .arg(file));
    }
    const QString text = QString::fromUtf8(bytes);
    if (text.toUtf8() != bytes)
        throw Error(QStringLiteral("%1: not valid UTF-8 text").arg(file));

    SuiteDefinition suite;
    const QFileInfo info(file);
    suite.source = info.absoluteFilePath();
    suite.name = nameOverride.isEmpty() ? info.completeBaseName() : nameOverride;
    suite.description = QStringLiteral("Tasks imported from %1").arg(info.fileName());
    QHash<QString, QString> seen;
    if (text.trimmed().startsWith(QLatin1Char('['))) {
        // The same records as one JSON array (pandas' to_json(orient="records")).
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
        if (err.error != QJsonParseError::NoError || !doc.isArray())
            throw Error(QStringLiteral("%1 is not a valid JSON array: %2 at offset %3")
                            .arg(file, err.errorString())
                            .arg(err.offset));
        const QJsonArray entries = doc.array();
        for (qsizetype i = 0; i < entries.size(); ++i)
            addTask(suite, seen, entries.at(i),
                    QStringLiteral("%1: entry %2").arg(file).arg(i + 1));
    } else {
        const QList<QByteArray> lines = bytes.split('\n');
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).trimmed();
            if (line.isEmpty())
                continue;
            const QString where = QStringLiteral("%1:%2").arg(file).arg(i + 1);
            QJsonParseError err{};
            const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
            if (err.error != QJsonParseError::NoError) {
                suite.problems << QStringLiteral("%1: not valid JSON (%2 at column %3)")
                                      .arg(where, err.errorString())
                                      .arg(err.offset + 1);
                continue;
            }
            addTask(suite, seen,
                    doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), where);
        }
    }
    if (suite.tasks.isEmpty()) {
        throw Error(QStringLiteral("no usable task in '%1'%2")
                        .arg(file, suite.problems.isEmpty()
                                       ? QString()
                                       : QStringLiteral(":\n  ") +
                                             suite.problems.join(QStringLiteral("\n  "))));
    }
    return suite;
}

} // namespace kb::engine
