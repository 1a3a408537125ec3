#include "kernelbenchexport.h"

#include "core/error.h"
#include "exporter.h"
#include "textformat.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <nlohmann/json.hpp>
#include <set>

namespace kb::report {

namespace {

using Json = nlohmann::ordered_json;

// KernelBench's "compiled": the candidate built and loaded; every verdict reached after that.
bool compiled(const std::string& verdict) {
    return verdict == "correct" || verdict == "incorrect" || verdict == "runtime_error" ||
           verdict == "timeout";
}

Json stats(const SeriesSummary& s, const db::EnvironmentRow* env) {
    Json j{{"mean", s.series.meanMs}, {"std", s.series.stdMs},       {"min", s.series.minMs},
           {"max", s.series.maxMs},   {"median", s.series.medianMs}, {"num_trials", s.sampleCount}};
    if (env) {
        j["hardware"] = env->deviceName.empty() ? env->device : env->deviceName;
        j["device"] = env->device;
    }
    return j;
}

Json entry(const ReportData& data, const AttemptRecord& rec) {
    const auto& a = rec.attempt;
    const EvaluationSummary* e = rec.evaluation ? &*rec.evaluation : nullptr;
    const db::EnvironmentRow* env =
        e && e->environmentId ? data.environment(*e->environmentId) : nullptr;

    Json meta{{"kbstudio_attempt_id", a.id}, {"kbstudio_run_id", a.runId}, {"model", a.modelName},
              {"task_key", a.taskKey},       {"task_name", a.taskName},    {"verdict", a.verdict},
              {"review", a.review},          {"suspicious", a.suspicious}};
    if (env) {
        meta["hardware"] = env->deviceName.empty() ? env->device : env->deviceName;
        meta["device"] = env->device;
    }
    if (e) {
        meta["correctness_trials"] =
            QStringLiteral("(%1 / %2)").arg(e->trialsPassed).arg(e->trials).toStdString();
        if (e->maxAbsError)
            meta["max_difference"] = *e->maxAbsError;
    }
    const std::string& v = a.verdict;
    if (v == "build_error")
        meta["compilation_error"] = a.message;
    else if (v == "runtime_error" || v == "invalid_candidate")
        meta["runtime_error"] = a.message;
    else if (v == "incorrect")
        meta["correctness_issue"] = a.message;
    else if (v == "timeout")
        meta["timeout"] = a.message;
    else if (v == "rejected" || a.review == "rejected")
        meta["rejected"] = a.message.empty() ? a.reviewNote : a.message;
    if (a.speedupEager)
        meta["kbstudio_speedup_eager"] = *a.speedupEager;
    if (a.speedupCompile)
        meta["kbstudio_speedup_compile"] = *a.speedupCompile;

    const bool timed = e && e->candidate;
    const bool refTimed = e && e->eager;
    return Json{{"sample_id", a.sampleIndex},
                {"compiled", compiled(v)},
                {"correctness", rec.scores},
                {"metadata", meta},
                {"runtime", timed ? e->candidate->series.meanMs : -1.0},
                {"runtime_stats", timed ? stats(*e->candidate, env) : Json::object()},
                {"ref_runtime", refTimed ? e->eager->series.meanMs : -1.0},
                {"ref_runtime_stats", refTimed ? stats(*e->eager, env) : Json::object()}};
}

// Problem ids in numeric order where they are numbers, then the others byte-wise.
bool problemLess(const QString& a, const QString& b) {
    bool aNum = false;
    bool bNum = false;
    const long long an = a.toLongLong(&aNum);
    const long long bn = b.toLongLong(&bNum);
    if (aNum != bNum)
        return aNum;
    if (aNum)
        return an < bn;
    return a < b;
}

// model: empty for every model.
Json levelJson(const ReportData& data, int level, const std::string& model = {}) {
    std::map<QString, std::vector<const AttemptRecord*>, decltype(&problemLess)> problems(
        &problemLess);
    for (const auto& rec : data.attempts) {
        if (rec.attempt.level == level && (model.empty() || rec.attempt.modelName == model))
            problems[kernelBenchProblemId(rec.attempt)].push_back(&rec);
    }
    Json out = Json::object();
    for (const auto& [id, recs] : problems) {
        Json samples = Json::array();
        for (const auto* rec : recs)
            samples.push_back(entry(data, *rec));
        out[id.toStdString()] = samples;
    }
    return out;
}

} // namespace

QString kernelBenchProblemId(const db::AttemptRow& attempt) {
    static const QRegularExpression key(QStringLiteral(R"(^L\d+_(\d+)$)"));
    const QString k = QString::fromStdString(attempt.taskKey);
    const auto m = key.match(k);
    return m.hasMatch() ? m.captured(1) : k;
}

QByteArray kernelBenchEvalResults(const ReportData& data) {
    std::set<std::string> models;
    std::set<int> levels;
    for (const auto& rec : data.attempts) {
        models.insert(rec.attempt.modelName);
        levels.insert(rec.attempt.level);
    }
    if (models.size() > 1) {
        QStringList names;
        for (const auto& m : models)
            names << QString::fromStdString(m);
        throw engine::Error(
            QStringLiteral("the KernelBench format holds one model per file; "
                           "select one with --models, or give --out a folder (ending in '/') "
                           "for one runs/<model>_level<L>/eval_results.json per model and level "
                           "(models: %1)")
                .arg(names.join(QStringLiteral(", "))));
    }
    Json doc = Json::object();
    if (levels.size() == 1) {
        doc = levelJson(data, *levels.begin());
    } else {
        for (int level : levels)
            doc["level" + std::to_string(level)] = levelJson(data, level);
    }
    return QByteArray::fromStdString(doc.dump(2, ' ', false, Json::error_handler_t::replace) +
                                     "\n");
}

QList<KernelBenchRunFile> kernelBenchRunFiles(const ReportData& data) {
    std::map<std::string, std::set<int>> levelsByModel;
    for (const auto& rec : data.attempts)
        levelsByModel[rec.attempt.modelName].insert(rec.attempt.level);
    // A folder name KernelBench's run_name can hold: letters, digits, '.', '-' and '_'.
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]"));
    std::set<QString> taken;
    QList<KernelBenchRunFile> out;
    for (const auto& [model, levels] : levelsByModel) {
        QString stem = QString::fromStdString(model).replace(unsafe, QStringLiteral("_"));
        if (stem.isEmpty() || stem.startsWith(QLatin1Char('.')))
            stem.prepend(QLatin1Char('_'));
        QString unique = stem;
        for (int n = 2; taken.count(unique.toLower()); ++n)
            unique = stem + QStringLiteral("_%1").arg(n);
        taken.insert(unique.toLower()); // case-insensitive file systems too
        for (int level : levels) {
            KernelBenchRunFile f;
            f.runName = QStringLiteral("%1_level%2").arg(unique).arg(level);
            f.model = QString::fromStdString(model);
            f.level = level;
            f.evalResults = QByteArray::fromStdString(
                levelJson(data, level, model).dump(2, ' ', false, Json::error_handler_t::replace) +
                "\n");
            out << f;
        }
    }
    return out;
}

QByteArray kernelBenchRunIndex(const QList<KernelBenchRunFile>& files) {
    Json runs = Json::array();
    for (const auto& f : files) {
        const Json doc = Json::parse(f.evalResults.toStdString());
        std::size_t samples = 0;
        for (const auto& [id, entries] : doc.items())
            samples += entries.size();
        runs.push_back(Json{{"run_name", f.runName.toStdString()},
                            {"model", f.model.toStdString()},
                            {"level", f.level},
                            {"problems", doc.size()},
                            {"samples", samples},
                            {"eval_results", f.runName.toStdString() + "/eval_results.json"}});
    }
    const Json index{{"format", "kernelbench-runs"},
                     {"note", "one KernelBench run folder per model and level: "
                              "benchmark_eval_analysis.py run_name=<run_name> level=<level>"},
                     {"runs", runs}};
    return QByteArray::fromStdString(index.dump(2, ' ', false, Json::error_handler_t::replace) +
                                     "\n");
}

QString writeKernelBenchRuns(const QString& dir, const ReportData& data, QStringList* written) {
    const QList<KernelBenchRunFile> files = kernelBenchRunFiles(data);
    if (files.isEmpty())
        return QStringLiteral("no attempt to export to '%1'").arg(dir);
    const QFileInfo info(dir);
    if (info.exists() && !info.isDir())
        return QStringLiteral("cannot write KernelBench run folders into '%1': it is a file")
            .arg(dir);
    // Never mixed with (or written over) results already there.
    QStringList paths{QStringLiteral("kbstudio_runs.json")};
    for (const auto& f : files)
        paths << f.runName;
    for (const auto& name : paths) {
        if (QFileInfo::exists(QDir(dir).filePath(name)))
            return QStringLiteral("'%1' exists already; give --out an empty or new folder")
                .arg(QDir(dir).filePath(name));
    }
    if (!QDir().mkpath(dir))
        return QStringLiteral("cannot create the folder '%1'").arg(dir);
    const auto write = [&](const QString& path, const QByteArray& bytes) -> QString {
        const QString error = writeFileAtomically(path, bytes);
        if (error.isEmpty() && written)
            *written << path;
        return error;
    };
    for (const auto& f : files) {
        const QString folder = QDir(dir).filePath(f.runName);
        if (!QDir().mkpath(folder))
            return QStringLiteral("cannot create the folder '%1'").arg(folder);
        if (const QString error =
                write(QDir(folder).filePath(QStringLiteral("eval_results.json")), f.evalResults);
            !error.isEmpty())
            return error;
    }
    return write(QDir(dir).filePath(QStringLiteral("kbstudio_runs.json")),
                 kernelBenchRunIndex(files));
}

} // namespace kb::report
