#include "baselineimport.h"

#include "core/error.h"
#include "core/hashing.h"
#include "db/sqlite.h"
#include "suites/suiteloader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <map>
#include <set>

namespace kb::report {

namespace {

// (level, problem number, name) -> source hashes
using HashIndex = std::map<std::tuple<int, int, QString>, std::set<std::string>>;

HashIndex hashesFromProblems(const QString& dir) {
    HashIndex index;
    const auto suite = engine::SuiteLoader::loadFolder(dir);
    static const QRegularExpression key(QStringLiteral(R"(^L\d+_(\d+)$)"));
    for (const auto& t : suite.tasks) {
        const auto m = key.match(t.key);
        if (m.hasMatch())
            index[{t.level, m.captured(1).toInt(), t.name}].insert(
                engine::sha256Hex(t.source).toStdString());
    }
    return index;
}

HashIndex hashesFromDatabase(db::Connection& conn) {
    HashIndex index;
    static const QRegularExpression key(QStringLiteral(R"(^L\d+_(\d+)$)"));
    db::Statement q(conn, "SELECT task_key, name, level, source_hash FROM tasks");
    while (q.step()) {
        const auto m = key.match(QString::fromStdString(q.text(0)));
        if (m.hasMatch())
            index[{q.int32(2), m.captured(1).toInt(), QString::fromStdString(q.text(1))}].insert(
                q.text(3));
    }
    return index;
}

QStringList gpuFolders(const QString& dir) {
    const QDir d(dir);
    if (!d.exists())
        throw engine::Error(QStringLiteral("'%1' is not a folder").arg(dir));
    auto isGpuFolder = [](const QDir& folder) {
        return !folder.entryList({QStringLiteral("baseline_time_torch*.json")}, QDir::Files)
                    .isEmpty();
    };
    if (isGpuFolder(d))
        return {d.absolutePath()};
    QStringList out;
    for (const auto& sub : d.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (isGpuFolder(QDir(sub.absoluteFilePath())))
            out << sub.absoluteFilePath();
    }
    if (out.isEmpty())
        throw engine::Error(
            QStringLiteral("'%1' holds no baseline_time_torch*.json, neither itself "
                           "nor in a GPU sub-folder")
                .arg(dir));
    return out;
}

QJsonObject readObject(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw engine::Error(QStringLiteral("cannot read '%1': %2").arg(path, f.errorString()));
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(f.readAll(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        throw engine::Error(QStringLiteral("'%1' is not a KernelBench baseline file: %2")
                                .arg(path, error.error != QJsonParseError::NoError
                                               ? error.errorString()
                                               : QStringLiteral("not a JSON object")));
    return doc.object();
}

// Median when the file gives one, else the mean: the published files carry mean, std, min and
// max only, and KernelBench's own analysis divides means.
std::optional<double> timeOf(const QJsonObject& entry) {
    for (const auto* key : {"median", "mean"}) {
        const auto v = entry.value(QLatin1String(key));
        if (v.isDouble() && v.toDouble() > 0)
            return v.toDouble();
    }
    return std::nullopt;
}

QString torchVersionOf(const QJsonObject& file, const QJsonObject& entry) {
    for (const auto* key : {"torch_version", "torch"}) {
        if (entry.value(QLatin1String(key)).isString())
            return entry.value(QLatin1String(key)).toString();
        if (file.value(QLatin1String(key)).isString())
            return file.value(QLatin1String(key)).toString();
    }
    return QStringLiteral("unknown");
}

} // namespace

QString publishedSettingsKey(const QString& fileName) {
    const QString prefix = QString::fromLatin1(kPublishedSettingsPrefix);
    if (fileName == QLatin1String("baseline_time_torch.json"))
        return prefix + QStringLiteral(";eager");
    static const QRegularExpression compile(
        QStringLiteral(R"(^baseline_time_torch_compile_(.+)\.json$)"));
    const auto m = compile.match(fileName);
    if (!m.hasMatch())
        return {};
    return prefix + QStringLiteral(";compile-") +
           m.captured(1).replace(QLatin1Char('_'), QLatin1Char('-'));
}

BaselineImportResult importPublishedBaselines(db::Connection& conn, const QString& dir,
                                              const BaselineImportOptions& options) {
    const QStringList folders = gpuFolders(dir);
    const HashIndex index = options.problemsDir.isEmpty() ? hashesFromDatabase(conn)
                                                          : hashesFromProblems(options.problemsDir);
    static const QRegularExpression levelKey(QStringLiteral(R"(^level(\d+)$)"));
    static const QRegularExpression problemFile(QStringLiteral(R"(^(\d+)_(.+)\.py$)"));

    BaselineImportResult result;
    db::Transaction tx(conn);
    db::Statement insert(
        conn, "INSERT INTO baselines(task_hash, device, torch_version, settings_key, "
              "eager_median_ms, compile_median_ms, compile_note) VALUES (?,?,?,?,?,?,?) "
              "ON CONFLICT(task_hash, device, torch_version, settings_key) DO UPDATE SET "
              "eager_median_ms=excluded.eager_median_ms, "
              "compile_median_ms=excluded.compile_median_ms, "
              "compile_note=excluded.compile_note, "
              "measured_at=strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    for (const auto& folder : folders) {
        const QString device = QFileInfo(folder).fileName();
        result.devices << device;
        for (const auto& file : QDir(folder).entryInfoList(
                 {QStringLiteral("baseline_time_torch*.json")}, QDir::Files, QDir::Name)) {
            const QString settingsKey = publishedSettingsKey(file.fileName());
            if (settingsKey.isEmpty())
                continue;
            const bool eager = settingsKey.endsWith(QLatin1String(";eager"));
            const QJsonObject doc = readObject(file.absoluteFilePath());
            ++result.files;
            for (auto level = doc.begin(); level != doc.end(); ++level) {
                const auto lm = levelKey.match(level.key());
                if (!lm.hasMatch() || !level.value().isObject())
                    continue;
                const QJsonObject problems = level.value().toObject();
                for (auto p = problems.begin(); p != problems.end(); ++p) {
                    ++result.entries;
                    const auto pm = problemFile.match(p.key());
                    const QJsonObject entry = p.value().toObject();
                    const auto ms = timeOf(entry);
                    const auto hashes = pm.hasMatch()
                                            ? index.find({lm.captured(1).toInt(),
                                                          pm.captured(1).toInt(), pm.captured(2)})
                                            : index.end();
                    if (!ms || hashes == index.end()) {
                        ++result.unmatched;
                        if (result.unmatchedNames.size() < 20)
                            result.unmatchedNames << level.key() + QLatin1Char('/') + p.key();
                        continue;
                    }
                    const std::string torch = torchVersionOf(doc, entry).toStdString();
                    for (const auto& hash : hashes->second) {
                        insert.bind(1, hash).bind(2, device.toStdString()).bind(3, torch);
                        insert.bind(4, settingsKey.toStdString());
                        if (eager) {
                            insert.bind(5, *ms).bindNull(6).bind(7, "");
                        } else {
                            insert.bindNull(5).bind(6, *ms).bind(7, "");
                        }
                        insert.exec();
                        ++result.stored;
                    }
                }
            }
        }
    }
    tx.commit();
    return result;
}

} // namespace kb::report
