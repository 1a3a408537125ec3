#include "candidateimport.h"

#include "core/error.h"
#include "core/hashing.h"
#include "db/catalogrepository.h"
#include "db/importrepository.h"
#include "suites/suitefile.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <cmath>

namespace kb::engine {
namespace {

QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}

// A whole number from a JSON number or a string of digits.
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

QString checkModelName(const QString& name) {
    if (name.trimmed().isEmpty())
        return QStringLiteral("the model name is empty");
    if (name.size() > 200)
        return QStringLiteral("the model name is longer than 200 characters");
    for (const QChar c : name) {
        if (c.category() == QChar::Other_Control)
            return QStringLiteral("the model name contains a control character");
    }
    return {};
}

QString checkCode(const QString& code, const QByteArray& utf8) {
    if (utf8.size() > kMaxCandidateFileBytes)
        return QStringLiteral("the code is larger than the %1 MiB a candidate may have")
            .arg(kMaxCandidateFileBytes / (1024 * 1024));
    if (code.contains(QChar(0)))
        return QStringLiteral("the code contains NUL bytes (binary data?)");
    return {};
}

// The suite's tasks, found by id, by KernelBench problem id within a level, and by name.
class TaskIndex {
public:
    explicit TaskIndex(const std::vector<db::TaskRow>& tasks)
        : m_tasks(tasks) {}

    const db::TaskRow* byKey(const QString& key) const {
        for (const auto& t : m_tasks)
            if (toQ(t.key) == key)
                return &t;
        return nullptr;
    }
    const db::TaskRow* byProblem(int level, qint64 problemId) const {
        for (const auto& t : m_tasks)
            if (t.level == level && kernelBenchProblemId(t) == problemId)
                return &t;
        return nullptr;
    }
    // Tasks of that name (level 0: any level).
    std::vector<const db::TaskRow*> byName(const QString& name, int level) const {
        std::vector<const db::TaskRow*> out;
        for (const auto& t : m_tasks)
            if (toQ(t.name) == name && (level == 0 || t.level == level))
                out.push_back(&t);
        return out;
    }
    std::vector<const db::TaskRow*> byProblemAndName(qint64 problemId, const QString& name) const {
        std::vector<const db::TaskRow*> out;
        for (const auto& t : m_tasks)
            if (kernelBenchProblemId(t) == problemId && toQ(t.name) == name)
                out.push_back(&t);
        return out;
    }

private:
    const std::vector<db::TaskRow>& m_tasks;
};

QString keysOf(const std::vector<const db::TaskRow*>& tasks) {
    QStringList keys;
    for (const auto* t : tasks)
        keys << toQ(t->key);
    return keys.join(QStringLiteral(", "));
}

// The task a JSON line names, or nullptr with `why`.
const db::TaskRow* resolveTask(const QJsonObject& o, const TaskIndex& index, QString& why) {
    qint64 level = 0;
    if (o.contains(QStringLiteral("level")) &&
        (!wholeNumber(o.value(QStringLiteral("level")), level) || level < 1 || level > 4)) {
        why = QStringLiteral("\"level\" must be a whole number from 1 to 4");
        return nullptr;
    }
    qint64 problemId = -1;
    const bool hasProblem = o.contains(QStringLiteral("problem_id"));
    if (hasProblem &&
        (!wholeNumber(o.value(QStringLiteral("problem_id")), problemId) || problemId < 0)) {
        why = QStringLiteral("\"problem_id\" must be a whole number, 0 or more");
        return nullptr;
    }
    const QJsonValue task = o.value(QStringLiteral("task"));
    if (task.isUndefined() || task.isNull()) {
        if (!hasProblem || level == 0) {
            why = QStringLiteral(
                "no task: give \"task\" (its id or name) or \"level\" and \"problem_id\"");
            return nullptr;
        }
        if (const auto* t = index.byProblem(static_cast<int>(level), problemId))
            return t;
        why = QStringLiteral("the suite has no task of level %1 with KernelBench problem id %2")
                  .arg(level)
                  .arg(problemId);
        return nullptr;
    }
    if (!task.isString() || task.toString().trimmed().isEmpty()) {
        why = QStringLiteral("\"task\" must be a non-empty string (the task's id or name)");
        return nullptr;
    }
    const QString name = task.toString().trimmed();
    if (const auto* t = index.byKey(name)) {
        if (level != 0 && t->level != level) {
            why = QStringLiteral("task '%1' is of level %2, not %3")
                      .arg(name)
                      .arg(t->level)
                      .arg(level);
            return nullptr;
        }
        return t;
    }
    // A KernelBench file name, "19_ReLU.py" or "19_ReLU".
    QString stem = name;
    if (stem.endsWith(QLatin1String(".py")))
        stem.chop(3);
    static const QRegularExpression numbered(QStringLiteral(R"(^(\d+)_(.+)$)"));
    if (const auto m = numbered.match(stem); m.hasMatch()) {
        const qint64 id = m.captured(1).toLongLong();
        if (level != 0) {
            if (const auto* t = index.byProblem(static_cast<int>(level), id))
                return t;
        } else {
            const auto found = index.byProblemAndName(id, m.captured(2));
            if (found.size() == 1)
                return found.front();
            if (found.size() > 1) {
                why = QStringLiteral("task '%1' matches several tasks (%2); add \"level\"")
                          .arg(name, keysOf(found));
                return nullptr;
            }
        }
    }
    const auto found = index.byName(name, static_cast<int>(level));
    if (found.size() == 1)
        return found.front();
    if (found.size() > 1) {
        why = QStringLiteral("task name '%1' is used by several tasks (%2); give the task id")
                  .arg(name, keysOf(found));
        return nullptr;
    }
    why = level != 0
              ? QStringLiteral("the suite has no task '%1' of level %2").arg(name).arg(level)
              : QStringLiteral("the suite has no task '%1' (by id, name or KernelBench file name)")
                    .arg(name);
    return nullptr;
}

void readRunFolder(const QString& dir, const QString& model, const TaskIndex& index,
                   CandidateImport& out) {
    if (const QString bad = checkModelName(model); !bad.isEmpty())
        throw Error(QStringLiteral("--model is needed for a KernelBench run folder (%1)").arg(bad));
    static const QRegularExpression kernel(
        QStringLiteral(R"(^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$)"));
    // System and hidden entries too: a FIFO or device with a kernel's name is reported, not
    // skipped.
    const QFileInfoList entries = QDir(dir).entryInfoList(
        QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
    if (entries.size() > kMaxCandidateFolderEntries)
        throw Error(QStringLiteral("%1 holds %2 entries, more than the %3 a run folder may have")
                        .arg(dir)
                        .arg(entries.size())
                        .arg(kMaxCandidateFolderEntries));
    struct Found {
        int level;
        qint64 problem;
        int sample;
        QFileInfo file;
    };
    std::vector<Found> files;
    for (const auto& e : entries) {
        const auto m = kernel.match(e.fileName());
        if (!m.hasMatch())
            continue;
        bool okSample = false;
        const int sample = m.captured(3).toInt(&okSample);
        files.push_back(
            {m.captured(1).toInt(), m.captured(2).toLongLong(), okSample ? sample : -1, e});
    }
    if (files.empty()) {
        throw Error(
            QStringLiteral(
                "no KernelBench kernel file (level_<L>_problem_<id>_sample_<k>_kernel.py) in %1")
                .arg(dir));
    }
    std::sort(files.begin(), files.end(), [](const Found& a, const Found& b) {
        return std::tie(a.level, a.problem, a.sample) < std::tie(b.level, b.problem, b.sample);
    });
    for (const auto& f : files) {
        const QString path = f.file.filePath();
        if (f.sample < 0 || f.sample > 1000000) {
            out.problems << QStringLiteral("%1: the sample number is out of range").arg(path);
            continue;
        }
        if (f.file.exists() && !isInsideFolder(path, dir)) {
            out.problems
                << QStringLiteral(
                       "%1: links to a file outside the run folder; copy it into the folder")
                       .arg(path);
            continue;
        }
        QByteArray bytes;
        QString problem;
        if (!readRegularFile(path, kMaxCandidateFileBytes, bytes, problem,
                             QStringLiteral("candidate file"))) {
            out.problems << problem;
            continue;
        }
        const QString code = QString::fromUtf8(bytes);
        if (code.toUtf8() != bytes) {
            out.problems << QStringLiteral("%1: not valid UTF-8 text").arg(path);
            continue;
        }
        if (const QString bad = checkCode(code, bytes); !bad.isEmpty()) {
            out.problems << QStringLiteral("%1: %2").arg(path, bad);
            continue;
        }
        const auto* task = index.byProblem(f.level, f.problem);
        if (!task) {
            out.problems
                << QStringLiteral(
                       "%1: the suite has no task of level %2 with KernelBench problem id %3")
                       .arg(path)
                       .arg(f.level)
                       .arg(f.problem);
            continue;
        }
        out.candidates << ImportedCandidate{model, task->id, toQ(task->key), f.sample, code, path};
    }
}

void readJsonl(const QString& file, const QString& defaultModel, const TaskIndex& index,
               CandidateImport& out) {
    QByteArray bytes;
    QString problem;
    if (!readRegularFile(file, kMaxCandidateJsonlBytes, bytes, problem,
                         QStringLiteral("candidate file")))
        throw Error(problem);
    if (QString::fromUtf8(bytes).toUtf8() != bytes)
        throw Error(QStringLiteral("%1: not valid UTF-8 text").arg(file));
    struct Pending {
        ImportedCandidate candidate;
        bool explicitSample = false;
    };
    std::vector<Pending> lines;
    const QList<QByteArray> raw = bytes.split('\n');
    for (qsizetype i = 0; i < raw.size(); ++i) {
        const QByteArray line = raw.at(i).trimmed();
        if (line.isEmpty())
            continue;
        const QString where = QStringLiteral("%1:%2").arg(file).arg(i + 1);
        const auto bad = [&](const QString& why) {
            out.problems << QStringLiteral("%1: %2").arg(where, why);
        };
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        if (err.error != QJsonParseError::NoError) {
            bad(QStringLiteral("not valid JSON (%1 at column %2)")
                    .arg(err.errorString())
                    .arg(err.offset + 1));
            continue;
        }
        if (!doc.isObject()) {
            bad(QStringLiteral(
                "not a JSON object; each line is {\"task\", \"model\", \"sample\", \"code\"}"));
            continue;
        }
        const QJsonObject o = doc.object();
        Pending p;
        p.candidate.origin = where;
        const QJsonValue code = o.value(QStringLiteral("code"));
        if (!code.isString()) {
            bad(QStringLiteral("no \"code\" string"));
            continue;
        }
        p.candidate.code = code.toString();
        if (const QString why = checkCode(p.candidate.code, p.candidate.code.toUtf8());
            !why.isEmpty()) {
            bad(why);
            continue;
        }
        const QJsonValue model = o.value(QStringLiteral("model"));
        if (!model.isUndefined() && !model.isNull() && !model.isString()) {
            bad(QStringLiteral("\"model\" must be a string"));
            continue;
        }
        p.candidate.model = model.isString() ? model.toString().trimmed() : defaultModel;
        if (p.candidate.model.isEmpty() && !model.isString()) {
            bad(QStringLiteral("no model: the line names none and no --model was given"));
            continue;
        }
        if (const QString why = checkModelName(p.candidate.model); !why.isEmpty()) {
            bad(why);
            continue;
        }
        const QJsonValue sample = o.value(QStringLiteral("sample"));
        if (!sample.isUndefined() && !sample.isNull()) {
            qint64 k = -1;
            if (!wholeNumber(sample, k) || k < 0 || k > 1000000) {
                bad(QStringLiteral("\"sample\" must be a whole number from 0 to 1000000"));
                continue;
            }
            p.candidate.sample = static_cast<int>(k);
            p.explicitSample = true;
        }
        QString why;
        const auto* task = resolveTask(o, index, why);
        if (!task) {
            bad(why);
            continue;
        }
        p.candidate.taskId = task->id;
        p.candidate.taskKey = toQ(task->key);
        lines.push_back(std::move(p));
    }
    // Lines without "sample" take the smallest index no other line of their model and task has.
    QSet<QString> taken;
    const auto slot = [](const ImportedCandidate& c) -> QString {
        return c.model + QChar(0) + QString::number(c.taskId) + QChar(0) +
               QString::number(c.sample);
    };
    for (const auto& p : lines)
        if (p.explicitSample)
            taken.insert(slot(p.candidate));
    for (auto& p : lines) {
        if (p.explicitSample)
            continue;
        p.candidate.sample = 0;
        while (taken.contains(slot(p.candidate)))
            ++p.candidate.sample;
        taken.insert(slot(p.candidate));
    }
    for (auto& p : lines)
        out.candidates << std::move(p.candidate);
    if (out.candidates.isEmpty() && out.problems.isEmpty())
        throw Error(QStringLiteral("%1 holds no candidate (one JSON object per line)").arg(file));
}

} // namespace

QStringList CandidateImport::models() const {
    QStringList out;
    for (const auto& c : candidates)
        if (!out.contains(c.model))
            out << c.model;
    return out;
}

int CandidateImport::samplesPerTask() const {
    int n = 0;
    for (const auto& c : candidates)
        n = std::max(n, c.sample + 1);
    return n;
}

int kernelBenchProblemId(const db::TaskRow& task) {
    static const QRegularExpression key(QStringLiteral(R"(^L\d+_(\d+)$)"));
    if (const auto m = key.match(toQ(task.key)); m.hasMatch())
        return m.captured(1).toInt();
    static const QRegularExpression file(QStringLiteral(R"(^(\d+)_.+\.py$)"));
    const QJsonObject meta =
        QJsonDocument::fromJson(QByteArray::fromStdString(task.metadataJson)).object();
    if (const auto m =
            file.match(QFileInfo(meta.value(QStringLiteral("file")).toString()).fileName());
        m.hasMatch())
        return m.captured(1).toInt();
    return -1;
}

CandidateImport readCandidates(const QString& path, const QString& defaultModel,
                               const std::vector<db::TaskRow>& tasks) {
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        throw Error(QStringLiteral("'%1' does not exist").arg(path));
    const TaskIndex index(tasks);
    CandidateImport out;
    out.source = info.absoluteFilePath();
    if (info.isDir()) {
        out.format = QStringLiteral("kernelbench-run");
        readRunFolder(path, defaultModel.trimmed(), index, out);
    } else {
        out.format = QStringLiteral("jsonl");
        readJsonl(path, defaultModel.trimmed(), index, out);
    }
    // One (model, task, sample) once.
    QHash<QString, QString> seen;
    for (const auto& c : std::as_const(out.candidates)) {
        const QString slot =
            QStringLiteral("%1 / %2 / sample %3").arg(c.model, c.taskKey).arg(c.sample);
        const auto it = seen.constFind(slot);
        if (it != seen.constEnd())
            out.problems
                << QStringLiteral("%1: %2 was given already by %3").arg(c.origin, slot, it.value());
        else
            seen.insert(slot, c.origin);
    }
    return out;
}

ImportedRun storeImportedRun(db::Connection& conn, db::Id suiteId, const QString& runName,
                             EvalSettings settings, const CandidateImport& import) {
    if (!import.problems.isEmpty())
        throw Error(QStringLiteral("%1 problem(s) in %2; nothing was imported")
                        .arg(import.problems.size())
                        .arg(import.source));
    if (import.candidates.isEmpty())
        throw Error(QStringLiteral("no candidate to import from %1").arg(import.source));
    db::Transaction tx(conn, db::Transaction::Lock::Immediate);
    db::CatalogRepository catalog(conn);
    std::optional<db::ProviderRow> provider;
    for (const auto& p : catalog.providers())
        if (p.name == kImportedProviderKind)
            provider = p;
    if (provider && provider->kind != kImportedProviderKind) {
        throw Error(
            QStringLiteral(
                "a provider named '%1' of kind '%2' exists already; imported models belong to a "
                "provider of that name and kind '%1': rename yours")
                .arg(QString::fromLatin1(kImportedProviderKind), toQ(provider->kind)));
    }
    const db::Id providerId =
        provider
            ? provider->id
            : catalog.upsertProvider(
                  {0, kImportedProviderKind, kImportedProviderKind, "",
                   R"({"note":"candidates generated elsewhere and imported, not a model this program calls"})"});
    QHash<QString, db::Id> modelIds;
    const auto models = catalog.models();
    for (const QString& name : import.models()) {
        db::Id id = 0;
        for (const auto& m : models)
            if (m.providerId == providerId && toQ(m.name) == name)
                id = m.id;
        if (id == 0) {
            db::ModelRow row;
            row.providerId = providerId;
            row.name = name.toStdString();
            row.label = QString(name + QStringLiteral(" (imported)")).toStdString();
            id = catalog.upsertModel(row);
        }
        modelIds.insert(name, id);
    }
    while (settings.seed == 0)
        settings.seed = QRandomGenerator::system()->generate64();
    QJsonObject json = settings.toJson();
    json.insert(QStringLiteral("samples"), import.samplesPerTask());
    QJsonObject origin;
    origin.insert(QStringLiteral("format"), import.format);
    origin.insert(QStringLiteral("source"), import.source);
    origin.insert(QStringLiteral("candidates"), static_cast<int>(import.candidates.size()));
    origin.insert(QStringLiteral("models"), QJsonArray::fromStringList(import.models()));
    json.insert(QStringLiteral("imported"), origin);
    db::RunRow run;
    run.name = runName.toStdString();
    run.suiteId = suiteId;
    run.mode = kImportedMode;
    run.settingsJson = QJsonDocument(json).toJson(QJsonDocument::Compact).toStdString();
    std::vector<db::ImportedCandidateRow> rows;
    rows.reserve(static_cast<size_t>(import.candidates.size()));
    for (const auto& c : import.candidates) {
        db::ImportedCandidateRow r;
        r.modelId = modelIds.value(c.model);
        r.taskId = c.taskId;
        r.sampleIndex = c.sample;
        r.code = c.code.toStdString();
        r.codeHash = sha256Hex(c.code).toStdString();
        r.origin = c.origin.toStdString();
        rows.push_back(std::move(r));
    }
    ImportedRun out;
    out.runId = db::ImportRepository(conn).createImportedRun(run, rows);
    out.attempts = static_cast<int>(rows.size());
    tx.commit();
    return out;
}

} // namespace kb::engine
