#include "reportdata.h"

#include "analysis/outcomes.h"
#include "attemptusage.h"
#include "core/error.h"
#include "db/runrepository.h"
#include "db/sqlite.h"
#include "pairedsection.h"

#include <QJsonDocument>
#include <algorithm>
#include <set>

namespace kb::report {

namespace {

QString joinNames(const std::set<std::string>& names) {
    QStringList list;
    for (const auto& n : names)
        list << QString::fromStdString(n);
    return list.isEmpty() ? QStringLiteral("none") : list.join(QStringLiteral(", "));
}

void validateFilter(const ExportFilter& filter, const std::vector<db::AttemptRow>& all) {
    std::set<std::string> models;
    for (const auto& a : all)
        models.insert(a.modelName);
    const QString scope = filter.runId != 0 ? QStringLiteral("run %1").arg(filter.runId)
                                            : QStringLiteral("the database");
    for (const auto& m : filter.models) {
        if (!models.count(m.toStdString())) {
            throw engine::Error(QStringLiteral("no model '%1' has attempts in %2 (models: %3)")
                                    .arg(m, scope, joinNames(models)));
        }
    }
    for (int level : filter.levels) {
        if (level < 1 || level > 4)
            throw engine::Error(
                QStringLiteral("level %1 does not exist; levels are 1 to 4").arg(level));
    }
    if (!filter.compare.isEmpty()) {
        if (filter.compare.size() != 2 || filter.compare.at(0) == filter.compare.at(1))
            throw engine::Error(
                QStringLiteral("compare takes two different models, e.g. model-a,model-b"));
        for (const auto& m : filter.compare) {
            if (!models.count(m.toStdString()))
                throw engine::Error(QStringLiteral("no model '%1' has attempts in %2 (models: %3)")
                                        .arg(m, scope, joinNames(models)));
            if (!filter.models.isEmpty() && !filter.models.contains(m))
                throw engine::Error(
                    QStringLiteral("model '%1' is compared but not selected").arg(m));
        }
    }
    const QStringList known = storedVerdictNames();
    for (const auto& v : filter.verdicts) {
        if (!known.contains(v)) {
            throw engine::Error(QStringLiteral("unknown verdict '%1' (verdicts: %2)")
                                    .arg(v, known.join(QStringLiteral(", "))));
        }
    }
}

bool selected(const ExportFilter& filter, const db::AttemptRow& a) {
    return (filter.models.isEmpty() ||
            filter.models.contains(QString::fromStdString(a.modelName))) &&
           (filter.levels.isEmpty() || filter.levels.contains(a.level));
}

std::map<db::Id, EvaluationSummary> loadEvaluations(db::Connection& conn, db::Id runId) {
    std::map<db::Id, EvaluationSummary> out; // by attempt id
    db::Statement q(conn,
                    "SELECT e.id, e.attempt_id, e.environment_id, e.correctness_passed, e.trials, "
                    "(SELECT count(*) FROM correctness_trials t WHERE t.evaluation_id = e.id AND "
                    "t.passed != 0), e.max_abs_error, e.max_rel_error, e.harness_seconds, "
                    "b.status, b.seconds "
                    "FROM evaluations e JOIN attempts a ON a.id = e.attempt_id "
                    "LEFT JOIN builds b ON b.id = (SELECT max(id) FROM builds "
                    "WHERE candidate_id = e.candidate_id) "
                    "WHERE (?1 = 0 OR a.run_id = ?1) AND e.id = (SELECT max(id) FROM evaluations "
                    "WHERE attempt_id = e.attempt_id)");
    q.bind(1, runId);
    while (q.step()) {
        EvaluationSummary e;
        e.id = q.int64(0);
        e.environmentId = q.optInt64(2);
        e.correctnessPassed = q.int64(3) != 0;
        e.trials = q.int32(4);
        e.trialsPassed = q.int32(5);
        e.maxAbsError = q.optReal(6);
        e.maxRelError = q.optReal(7);
        e.harnessSeconds = q.real(8);
        if (!q.isNull(9)) {
            e.buildStatus = q.text(9);
            e.buildSeconds = q.real(10);
        }
        out.emplace(q.int64(1), std::move(e));
    }
    return out;
}

void loadTiming(db::Connection& conn, db::Id runId, bool samples,
                std::map<db::Id, EvaluationSummary>& byAttempt) {
    std::map<db::Id, EvaluationSummary*> byEvaluation;
    for (auto& [attemptId, e] : byAttempt)
        byEvaluation[e.id] = &e;
    std::map<db::Id, SeriesSummary*> bySeries;
    db::Statement q(conn, "SELECT ts.id, ts.evaluation_id, ts.kind, ts.median_ms, ts.mean_ms, "
                          "ts.std_ms, ts.min_ms, ts.max_ms, ts.wall_ms, ts.samples "
                          "FROM timing_series ts JOIN evaluations e ON e.id = ts.evaluation_id "
                          "JOIN attempts a ON a.id = e.attempt_id "
                          "WHERE ?1 = 0 OR a.run_id = ?1 ORDER BY ts.id");
    q.bind(1, runId);
    while (q.step()) {
        const auto it = byEvaluation.find(q.int64(1));
        if (it == byEvaluation.end())
            continue; // an older evaluation of the attempt
        SeriesSummary s;
        s.series.id = q.int64(0);
        s.series.kind = q.text(2);
        s.series.medianMs = q.real(3);
        s.series.meanMs = q.real(4);
        s.series.stdMs = q.real(5);
        s.series.minMs = q.real(6);
        s.series.maxMs = q.real(7);
        s.series.wallMs = q.optReal(8);
        s.sampleCount = q.int32(9);
        EvaluationSummary& e = *it->second;
        std::optional<SeriesSummary>* slot = s.series.kind == "candidate" ? &e.candidate
                                             : s.series.kind == "eager"   ? &e.eager
                                                                          : &e.compile;
        *slot = std::move(s);
        bySeries[(*slot)->series.id] = &**slot;
    }
    if (!samples)
        return;
    db::Statement smp(conn, "SELECT s.series_id, s.ms FROM timing_samples s "
                            "JOIN timing_series ts ON ts.id = s.series_id "
                            "JOIN evaluations e ON e.id = ts.evaluation_id "
                            "JOIN attempts a ON a.id = e.attempt_id "
                            "WHERE ?1 = 0 OR a.run_id = ?1 ORDER BY s.series_id, s.sample_index");
    smp.bind(1, runId);
    while (smp.step()) {
        const auto it = bySeries.find(smp.int64(0));
        if (it != bySeries.end())
            it->second->series.samplesMs.push_back(smp.real(1));
    }
}

std::map<db::Id, std::vector<db::FindingRow>> loadFindings(db::Connection& conn, db::Id runId) {
    std::map<db::Id, std::vector<db::FindingRow>> out;
    db::Statement q(conn, "SELECT f.attempt_id, f.rule, f.severity, f.location, f.message "
                          "FROM findings f JOIN attempts a ON a.id = f.attempt_id "
                          "WHERE ?1 = 0 OR a.run_id = ?1 ORDER BY f.id");
    q.bind(1, runId);
    while (q.step())
        out[q.int64(0)].push_back({q.text(1), q.text(2), q.text(3), q.text(4)});
    return out;
}

std::vector<db::EnvironmentRow> loadEnvironments(db::Connection& conn,
                                                 const std::set<db::Id>& ids) {
    std::vector<db::EnvironmentRow> out;
    db::Statement q(conn, "SELECT id, fingerprint, device, device_name, torch, python, cuda, "
                          "driver, details_json FROM environments ORDER BY id");
    while (q.step()) {
        if (ids.count(q.int64(0))) {
            out.push_back({q.int64(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5),
                           q.text(6), q.text(7), q.text(8)});
        }
    }
    return out;
}

} // namespace

QStringList storedVerdictNames() {
    return {QStringLiteral("pending"),        QStringLiteral("correct"),
            QStringLiteral("incorrect"),      QStringLiteral("build_error"),
            QStringLiteral("runtime_error"),  QStringLiteral("timeout"),
            QStringLiteral("rejected"),       QStringLiteral("invalid_candidate"),
            QStringLiteral("no_candidate"),   QStringLiteral("harness_error"),
            QStringLiteral("provider_error"), QStringLiteral("infra_error")};
}

QJsonObject publicRunSettings(const db::RunRow& run) {
    QJsonObject settings =
        QJsonDocument::fromJson(QByteArray::fromStdString(run.settingsJson)).object();
    settings.remove(QStringLiteral("seed"));
    return settings;
}

const db::EnvironmentRow* ReportData::environment(db::Id id) const {
    for (const auto& e : environments) {
        if (e.id == id)
            return &e;
    }
    return nullptr;
}

const AttemptRecord* ReportData::attemptById(db::Id id) const {
    for (const auto& a : attempts) {
        if (a.attempt.id == id)
            return &a;
    }
    return nullptr;
}

ReportData loadReportData(db::Connection& conn, const ExportFilter& filter,
                          const LoadOptions& options) {
    db::RunRepository runs(conn);
    ReportData data;
    data.filter = filter;
    data.timingSamplesLoaded = options.timingSamples;
    if (filter.runId != 0) {
        auto run = runs.run(filter.runId);
        if (!run)
            throw engine::Error(QStringLiteral("no run with id %1 in '%2'")
                                    .arg(filter.runId)
                                    .arg(QString::fromStdString(conn.path())));
        data.runs.push_back(*run);
    } else {
        data.runs = runs.runs();
        std::sort(data.runs.begin(), data.runs.end(),
                  [](const db::RunRow& a, const db::RunRow& b) { return a.id < b.id; });
    }

    const auto all = runs.attempts(filter.runId);
    validateFilter(filter, all);

    std::map<int, std::set<std::string>> taskKeys;
    for (const auto& a : all) {
        if (filter.levels.isEmpty() || filter.levels.contains(a.level))
            taskKeys[a.level].insert(a.taskKey);
    }
    for (const auto& [level, keys] : taskKeys)
        data.tasksPerLevel[level] = static_cast<int>(keys.size());

    auto evaluations = loadEvaluations(conn, filter.runId);
    loadTiming(conn, filter.runId, options.timingSamples, evaluations);
    auto findings = loadFindings(conn, filter.runId);
    auto usage = loadAttemptUsage(conn, filter.runId);
    const PublishedBaselines published(conn);
    const auto gpuNames =
        published.empty() ? std::map<db::Id, std::string>() : environmentGpuNames(conn);

    std::set<db::Id> environmentIds;
    for (const auto& a : all) {
        if (!selected(filter, a))
            continue;
        auto outcome = engine::toOutcome(a);
        data.outcomes.push_back(outcome);
        if (auto u = usage.find(a.id); u != usage.end()) {
            AttemptUsage& used = data.usageByAttempt[a.id] = u->second;
            used.model = a.modelName;
            used.inputTokens = a.inputTokens;
            used.outputTokens = a.outputTokens;
        }
        const bool matches = filter.verdicts.isEmpty() ||
                             filter.verdicts.contains(QString::fromStdString(a.verdict));
        const bool scores = metrics::isScoringCorrect(outcome);
        data.attemptsByTask[{a.modelName, a.level, a.taskKey}].push_back(
            {a.id, a.sampleIndex, a.verdict, matches, scores});
        if (const auto e = evaluations.find(a.id); !published.empty() && e != evaluations.end() &&
                                                   e->second.candidate && e->second.environmentId) {
            const auto gpu = gpuNames.find(*e->second.environmentId);
            if (gpu != gpuNames.end()) {
                if (auto p = published.compare(a.taskId, gpu->second,
                                               e->second.candidate->series.medianMs))
                    data.publishedByAttempt.emplace(a.id, std::move(*p));
            }
        }
        if (!matches)
            continue;
        AttemptRecord rec;
        rec.attempt = a;
        rec.outcome = outcome;
        rec.scores = scores;
        if (auto p = data.publishedByAttempt.find(a.id); p != data.publishedByAttempt.end())
            rec.published = p->second;
        if (auto u = data.usageByAttempt.find(a.id); u != data.usageByAttempt.end())
            rec.usage = u->second;
        if (auto e = evaluations.find(a.id); e != evaluations.end()) {
            rec.evaluation = std::move(e->second);
            if (rec.evaluation->environmentId)
                environmentIds.insert(*rec.evaluation->environmentId);
        }
        if (auto f = findings.find(a.id); f != findings.end())
            rec.findings = std::move(f->second);
        data.attempts.push_back(std::move(rec));
    }
    data.environments = loadEnvironments(conn, environmentIds);

    metrics::LeaderboardOptions lbOptions;
    lbOptions.tasksPerLevel = data.tasksPerLevel;
    lbOptions.bootstrapGeomean = true;
    data.leaderboard = metrics::computeLeaderboard(data.outcomes, lbOptions);
    if (const auto pair = comparedModels(filter))
        data.paired = comparePairedModels(data.outcomes, pair->first, pair->second);
    return data;
}

} // namespace kb::report
