#include "jsonexport.h"

#include "analysis/outcomes.h"
#include "attemptusage.h"
#include "core/error.h"
#include "db/runrepository.h"
#include "db/sqlite.h"
#include "runsettingssummary.h"
#include "textformat.h"

#include <QIODevice>
#include <QJsonDocument>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace kb::report {

namespace {

using Json = nlohmann::ordered_json;

Json optionalNumber(const std::optional<double>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json derived(const std::optional<double>& value) {
    return value ? Json(roundDerived(*value)) : Json(nullptr);
}

Json filterJson(const ExportFilter& f) {
    Json models = Json::array();
    for (const auto& m : f.models)
        models.push_back(m.toStdString());
    Json levels = Json::array();
    for (int l : f.levels)
        levels.push_back(l);
    Json verdicts = Json::array();
    for (const auto& v : f.verdicts)
        verdicts.push_back(v.toStdString());
    return Json{{"run", f.runId}, {"models", models}, {"levels", levels}, {"verdicts", verdicts}};
}

// The header facts of runsettingssummary.h (precision, TF32, compile mode, prompt template...).
Json settingsSummaryJson(const db::RunRow& r) {
    Json o = Json::object();
    for (const auto& f : runSettingsFacts(r))
        o[f.key.toStdString()] = f.value.toStdString();
    return o;
}

Json runJson(const db::RunRow& r) {
    const QByteArray settings = QJsonDocument(publicRunSettings(r)).toJson(QJsonDocument::Compact);
    return Json{{"id", r.id},
                {"name", r.name},
                {"suite", r.suiteName},
                {"mode", r.mode},
                {"status", r.status},
                {"created_at", r.createdAt},
                {"settings", Json::parse(settings.toStdString(), nullptr, false)},
                {"settings_summary", settingsSummaryJson(r)}};
}

Json environmentJson(const db::EnvironmentRow& e) {
    return Json{{"id", e.id},         {"fingerprint", e.fingerprint},
                {"device", e.device}, {"device_name", e.deviceName},
                {"torch", e.torch},   {"python", e.python},
                {"cuda", e.cuda},     {"driver", e.driver}};
}

Json cellJson(const metrics::LeaderboardCell& c) {
    Json fastP = Json::array();
    for (const auto& f : c.fastP) {
        fastP.push_back(Json{{"p", f.p},
                             {"vs_eager", roundDerived(f.vsEager)},
                             {"vs_compile", derived(f.vsCompile)}});
    }
    Json ci = nullptr;
    if (c.passRateCi)
        ci = Json::array({roundDerived(c.passRateCi->low), roundDerived(c.passRateCi->high)});
    const auto interval = [](const std::optional<metrics::Interval>& i) {
        return i ? Json::array({roundDerived(i->low), roundDerived(i->high)}) : Json(nullptr);
    };
    Json passAtK = Json::array();
    for (const auto& p : c.passAtK) {
        passAtK.push_back(Json{{"k", p.k},
                               {"value", derived(p.value)},
                               {"tasks_with_too_few_samples", p.tasksWithTooFewSamples}});
    }
    return Json{{"model", c.model},
                {"level", c.level},
                {"tasks", c.tasks},
                {"attempted", c.attempted},
                {"built", c.built},
                {"correct", c.correct},
                {"timed", c.timed},
                {"pass_rate", roundDerived(c.passRate)},
                {"pass_rate_ci", ci},
                {"pass_at_k", passAtK},
                {"fast_p", fastP},
                {"geomean_eager", derived(c.geomeanEager)},
                {"geomean_eager_ci", interval(c.geomeanEagerCi)},
                {"geomean_compile", derived(c.geomeanCompile)},
                {"geomean_compile_ci", interval(c.geomeanCompileCi)},
                {"geomean_fallback_eager", derived(c.geomeanFallbackEager)},
                {"geomean_fallback_compile", derived(c.geomeanFallbackCompile)},
                {"median_eager", derived(c.medianEager)},
                {"median_compile", derived(c.medianCompile)},
                {"suspicious", c.suspicious},
                {"accepted_suspicious", c.acceptedSuspicious},
                {"rejected", c.rejected},
                {"input_tokens", c.inputTokens},
                {"output_tokens", c.outputTokens},
                {"turns", c.turns}};
}

Json leaderboardJson(const ReportData& data) {
    const auto& b = data.leaderboard;
    Json levels = Json::array();
    for (int level : b.levels) {
        levels.push_back(
            Json{{"level", level},
                 {"tasks", b.tasksPerLevel.count(level) ? b.tasksPerLevel.at(level) : 0},
                 {"weight", b.levelWeights.count(level) ? b.levelWeights.at(level) : 0.0},
                 {"compile_available",
                  b.compileAvailable.count(level) ? b.compileAvailable.at(level) : false}});
    }
    Json cells = Json::array();
    for (const auto& c : b.cells)
        cells.push_back(cellJson(c));
    Json overall = Json::array();
    for (const auto& c : b.overall)
        overall.push_back(cellJson(c));
    Json ks = Json::array();
    for (int k : b.passAtKs)
        ks.push_back(k);
    return Json{{"levels", levels}, {"pass_at_ks", ks}, {"cells", cells}, {"overall", overall}};
}

Json seriesJson(const SeriesSummary& s, bool withSamples) {
    Json j{{"series_id", s.series.id},       {"samples", s.sampleCount},
           {"median_ms", s.series.medianMs}, {"mean_ms", s.series.meanMs},
           {"std_ms", s.series.stdMs},       {"min_ms", s.series.minMs},
           {"max_ms", s.series.maxMs},       {"wall_ms", optionalNumber(s.series.wallMs)}};
    if (withSamples)
        j["samples_ms"] = s.series.samplesMs;
    return j;
}

Json evaluationJson(const EvaluationSummary& e, bool withSamples) {
    Json timing = Json::object();
    if (e.candidate)
        timing["candidate"] = seriesJson(*e.candidate, withSamples);
    if (e.eager)
        timing["eager"] = seriesJson(*e.eager, withSamples);
    if (e.compile)
        timing["compile"] = seriesJson(*e.compile, withSamples);
    Json build = nullptr;
    if (!e.buildStatus.empty())
        build = Json{{"status", e.buildStatus}, {"seconds", optionalNumber(e.buildSeconds)}};
    return Json{{"id", e.id},
                {"environment_id", e.environmentId ? Json(*e.environmentId) : Json(nullptr)},
                {"correctness", Json{{"passed", e.correctnessPassed},
                                     {"trials", e.trials},
                                     {"trials_passed", e.trialsPassed},
                                     {"max_abs_error", optionalNumber(e.maxAbsError)},
                                     {"max_rel_error", optionalNumber(e.maxRelError)}}},
                {"build", build},
                {"harness_seconds", e.harnessSeconds},
                {"timing", timing}};
}

// The attempt_timing row of an attempt: each speedup's 95 % interval, whether its timing missed
// its precision target, the timing regime.
void addTimingFields(Json& a, const db::SpeedupUncertainty& u) {
    a["speedup_eager_low"] = optionalNumber(u.eagerLow);
    a["speedup_eager_high"] = optionalNumber(u.eagerHigh);
    a["speedup_compile_low"] = optionalNumber(u.compileLow);
    a["speedup_compile_high"] = optionalNumber(u.compileHigh);
    a["noisy_eager"] = u.noisyEager;
    a["noisy_compile"] = u.noisyCompile;
    a["noisy"] = u.noisy();
    a["timing_regime"] = u.regime;
}

// What generating the attempt cost and who served it (attemptusage.h). cost_usd is the stored
// attempt column, which the streamed export carries under its own name.
void addUsageFields(Json& a, const AttemptUsage& u) {
    a["cache_read_tokens"] = u.cacheReadTokens;
    a["cache_write_tokens"] = u.cacheWriteTokens;
    a["latency_ms"] = optionalNumber(u.latencyMs);
    a["provider"] = u.provider;
    a["base_url_host"] = u.baseUrlHost;
    a["ttft_ms"] = optionalNumber(u.meanTtftMs());
    a["ttft_turns"] = u.ttftTurns;
    a["model_snapshots"] = u.modelSnapshots;
}

void addPublishedFields(Json& a, const std::optional<PublishedComparison>& p) {
    a["published_device"] = p ? Json(p->device) : Json(nullptr);
    a["published_eager_ms"] = p ? Json(p->publishedMs) : Json(nullptr);
    a["speedup_published_eager"] = p ? Json(p->speedup) : Json(nullptr);
}

Json attemptJson(const AttemptRecord& rec, bool withSamples) {
    const auto& a = rec.attempt;
    Json findings = Json::array();
    for (const auto& f : rec.findings) {
        findings.push_back(Json{{"rule", f.rule},
                                {"severity", f.severity},
                                {"location", f.location},
                                {"message", f.message}});
    }
    Json out{{"attempt_id", a.id},
             {"run_id", a.runId},
             {"model", a.modelName},
             {"task_key", a.taskKey},
             {"task_name", a.taskName},
             {"level", a.level},
             {"sample_index", a.sampleIndex},
             {"mode", a.mode},
             {"status", a.status},
             {"verdict", a.verdict},
             {"review", a.review},
             {"review_note", a.reviewNote},
             {"suspicious", a.suspicious},
             {"scores", rec.scores},
             {"speedup_eager", optionalNumber(a.speedupEager)},
             {"speedup_compile", optionalNumber(a.speedupCompile)},
             {"input_tokens", a.inputTokens},
             {"output_tokens", a.outputTokens},
             {"turns", a.turns},
             {"started_at", a.startedAt ? Json(*a.startedAt) : Json(nullptr)},
             {"finished_at", a.finishedAt ? Json(*a.finishedAt) : Json(nullptr)},
             {"message", a.message},
             {"evaluation",
              rec.evaluation ? evaluationJson(*rec.evaluation, withSamples) : Json(nullptr)},
             {"findings", findings}};
    addTimingFields(out, a.uncertainty);
    out["cost_usd"] = optionalNumber(a.costUsd);
    addUsageFields(out, rec.usage);
    addPublishedFields(out, rec.published);
    return out;
}

Json headJson(const ExportFilter& filter, const std::vector<db::RunRow>& runs,
              const std::vector<db::EnvironmentRow>& environmentRows, const Json& leaderboard) {
    Json runList = Json::array();
    for (const auto& r : runs)
        runList.push_back(runJson(r));
    Json environments = Json::array();
    for (const auto& e : environmentRows)
        environments.push_back(environmentJson(e));
    return Json{{"format", "kbstudio-export"},  {"format_version", kJsonExportVersion},
                {"filter", filterJson(filter)}, {"runs", runList},
                {"environments", environments}, {"leaderboard", leaderboard}};
}

} // namespace

QByteArray attemptsJson(const ReportData& data) {
    const bool withSamples = data.timingSamplesLoaded;
    Json doc = headJson(data.filter, data.runs, data.environments, leaderboardJson(data));
    Json attempts = Json::array();
    for (const auto& rec : data.attempts)
        attempts.push_back(attemptJson(rec, withSamples));
    doc["attempts"] = std::move(attempts);
    return QByteArray::fromStdString(doc.dump(2, ' ', false, Json::error_handler_t::replace) +
                                     "\n");
}

// --- Streaming ---------------------------------------------------------------------------------

namespace {

// The columns the attempt query adds after a.* (their names never reach the export).
constexpr int kJoinedColumns = 8;
constexpr const char* kAttemptStream =
    "SELECT a.*, m.name, t.task_key, t.name, t.level, "
    "(SELECT coalesce(sum(input_tokens), 0) FROM turns WHERE attempt_id = a.id), "
    "(SELECT coalesce(sum(output_tokens), 0) FROM turns WHERE attempt_id = a.id), "
    "(SELECT count(*) FROM turns WHERE attempt_id = a.id), "
    // metrics::isScoringCorrect in SQL, as the task summaries compute it
    "(a.review != 'rejected' AND a.verdict = 'correct' AND "
    " (CAST(a.suspicious AS INTEGER) = 0 OR a.review = 'accepted')) "
    "FROM attempts a JOIN models m ON m.id = a.model_id JOIN tasks t ON t.id = a.task_id "
    "WHERE ?1 = 0 OR a.run_id = ?1 "
    "ORDER BY a.run_id, t.level, t.task_key, m.name, a.sample_index";

bool selectedRow(const ExportFilter& f, const std::string& model, int level) {
    return (f.models.isEmpty() || f.models.contains(QString::fromStdString(model))) &&
           (f.levels.isEmpty() || f.levels.contains(level));
}

bool verdictMatches(const ExportFilter& f, const std::string& verdict) {
    return f.verdicts.isEmpty() || f.verdicts.contains(QString::fromStdString(verdict));
}

// The same checks and messages as loadReportData, from the model names alone.
void validateFilter(db::Connection& conn, const ExportFilter& filter) {
    std::set<std::string> models;
    db::Statement q(conn,
                    "SELECT DISTINCT m.name FROM attempts a JOIN models m ON m.id = a.model_id "
                    "WHERE ?1 = 0 OR a.run_id = ?1");
    q.bind(1, filter.runId);
    while (q.step())
        models.insert(q.text(0));
    QStringList names;
    for (const auto& m : models)
        names << QString::fromStdString(m);
    const QString known =
        names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
    const QString scope = filter.runId != 0 ? QStringLiteral("run %1").arg(filter.runId)
                                            : QStringLiteral("the database");
    for (const auto& m : filter.models) {
        if (!models.count(m.toStdString()))
            throw engine::Error(QStringLiteral("no model '%1' has attempts in %2 (models: %3)")
                                    .arg(m, scope, known));
    }
    for (int level : filter.levels) {
        if (level < 1 || level > 4)
            throw engine::Error(
                QStringLiteral("level %1 does not exist; levels are 1 to 4").arg(level));
    }
    const QStringList verdicts = storedVerdictNames();
    for (const auto& v : filter.verdicts) {
        if (!verdicts.contains(v)) {
            throw engine::Error(QStringLiteral("unknown verdict '%1' (verdicts: %2)")
                                    .arg(v, verdicts.join(QStringLiteral(", "))));
        }
    }
}

// Unfiltered, the leaderboard comes from the task summaries the database keeps (a few rows per
// task); a model or level filter recomputes it from one small outcome per attempt, as
// loadReportData does.
metrics::Leaderboard streamLeaderboard(db::Connection& conn, const ExportFilter& filter) {
    if (filter.models.isEmpty() && filter.levels.isEmpty())
        return engine::leaderboardFor(conn, filter.runId);
    auto set = engine::loadOutcomes(conn, filter.runId);
    std::map<int, std::set<std::string>> keys;
    std::vector<metrics::AttemptOutcome> outcomes;
    for (auto& o : set.outcomes) {
        if (filter.levels.isEmpty() || filter.levels.contains(o.level))
            keys[o.level].insert(o.taskId);
        if (selectedRow(filter, o.model, o.level))
            outcomes.push_back(std::move(o));
    }
    metrics::LeaderboardOptions options;
    for (const auto& [level, k] : keys)
        options.tasksPerLevel[level] = static_cast<int>(k.size());
    options.bootstrapGeomean = true;
    return metrics::computeLeaderboard(outcomes, options);
}

std::vector<db::EnvironmentRow> streamEnvironments(db::Connection& conn,
                                                   const ExportFilter& filter) {
    std::set<db::Id> ids;
    db::Statement q(conn, "SELECT e.environment_id, m.name, t.level, a.verdict FROM attempts a "
                          "JOIN models m ON m.id = a.model_id JOIN tasks t ON t.id = a.task_id "
                          "JOIN evaluations e ON e.id = (SELECT max(id) FROM evaluations "
                          "WHERE attempt_id = a.id) "
                          "WHERE (?1 = 0 OR a.run_id = ?1) AND e.environment_id IS NOT NULL");
    q.bind(1, filter.runId);
    while (q.step()) {
        if (selectedRow(filter, q.text(1), q.int32(2)) && verdictMatches(filter, q.text(3)))
            ids.insert(q.int64(0));
    }
    std::vector<db::EnvironmentRow> out;
    db::Statement env(conn, "SELECT id, fingerprint, device, device_name, torch, python, cuda, "
                            "driver, details_json FROM environments ORDER BY id");
    while (env.step()) {
        if (ids.count(env.int64(0))) {
            out.push_back({env.int64(0), env.text(1), env.text(2), env.text(3), env.text(4),
                           env.text(5), env.text(6), env.text(7), env.text(8)});
        }
    }
    return out;
}

// Per-attempt lookups, prepared once: the latest evaluation, its timing and the findings.
class AttemptDetails {
public:
    explicit AttemptDetails(db::Connection& conn)
        : m_evaluation(conn,
                       "SELECT e.id, e.environment_id, e.correctness_passed, e.trials, "
                       "(SELECT count(*) FROM correctness_trials t WHERE t.evaluation_id = e.id "
                       "AND t.passed != 0), e.max_abs_error, e.max_rel_error, e.harness_seconds, "
                       "b.status, b.seconds FROM evaluations e "
                       "LEFT JOIN builds b ON b.id = (SELECT max(id) FROM builds "
                       "WHERE candidate_id = e.candidate_id) "
                       "WHERE e.id = (SELECT max(id) FROM evaluations WHERE attempt_id = ?)")
        , m_series(conn,
                   "SELECT id, kind, median_ms, mean_ms, std_ms, min_ms, max_ms, wall_ms, samples "
                   "FROM timing_series WHERE evaluation_id = ? ORDER BY id")
        , m_samples(conn, "SELECT ms FROM timing_samples WHERE series_id = ? ORDER BY sample_index")
        , m_findings(conn, "SELECT rule, severity, location, message FROM findings "
                           "WHERE attempt_id = ? ORDER BY id")
        , m_timing(conn, "SELECT speedup_eager_low, speedup_eager_high, speedup_compile_low, "
                         "speedup_compile_high, noisy_eager, noisy_compile, regime "
                         "FROM attempt_timing WHERE attempt_id = ?")
        , m_usage(conn)
        , m_published(conn)
        , m_gpuNames(m_published.empty() ? std::map<db::Id, std::string>()
                                         : environmentGpuNames(conn)) {}

    db::SpeedupUncertainty timing(db::Id attemptId) {
        db::SpeedupUncertainty u;
        m_timing.bind(1, attemptId);
        if (m_timing.step()) {
            u.eagerLow = m_timing.optReal(0);
            u.eagerHigh = m_timing.optReal(1);
            u.compileLow = m_timing.optReal(2);
            u.compileHigh = m_timing.optReal(3);
            u.noisyEager = m_timing.int64(4) != 0;
            u.noisyCompile = m_timing.int64(5) != 0;
            u.regime = m_timing.text(6);
        }
        m_timing.reset();
        return u;
    }

    std::optional<EvaluationSummary> evaluation(db::Id attemptId) {
        m_evaluation.bind(1, attemptId);
        if (!m_evaluation.step()) {
            m_evaluation.reset();
            return std::nullopt;
        }
        EvaluationSummary e;
        e.id = m_evaluation.int64(0);
        e.environmentId = m_evaluation.optInt64(1);
        e.correctnessPassed = m_evaluation.int64(2) != 0;
        e.trials = m_evaluation.int32(3);
        e.trialsPassed = m_evaluation.int32(4);
        e.maxAbsError = m_evaluation.optReal(5);
        e.maxRelError = m_evaluation.optReal(6);
        e.harnessSeconds = m_evaluation.real(7);
        if (!m_evaluation.isNull(8)) {
            e.buildStatus = m_evaluation.text(8);
            e.buildSeconds = m_evaluation.real(9);
        }
        m_evaluation.reset();
        m_series.bind(1, e.id);
        while (m_series.step()) {
            SeriesSummary s;
            s.series.id = m_series.int64(0);
            s.series.kind = m_series.text(1);
            s.series.medianMs = m_series.real(2);
            s.series.meanMs = m_series.real(3);
            s.series.stdMs = m_series.real(4);
            s.series.minMs = m_series.real(5);
            s.series.maxMs = m_series.real(6);
            s.series.wallMs = m_series.optReal(7);
            s.sampleCount = m_series.int32(8);
            m_samples.bind(1, s.series.id);
            while (m_samples.step())
                s.series.samplesMs.push_back(m_samples.real(0));
            m_samples.reset();
            auto& slot = s.series.kind == "candidate" ? e.candidate
                         : s.series.kind == "eager"   ? e.eager
                                                      : e.compile;
            slot = std::move(s);
        }
        m_series.reset();
        return e;
    }

    AttemptUsage usage(db::Id attemptId) { return m_usage.read(attemptId); }

    std::optional<PublishedComparison> published(db::Id taskId,
                                                 const std::optional<EvaluationSummary>& e) const {
        if (m_published.empty() || !e || !e->candidate || !e->environmentId)
            return std::nullopt;
        const auto gpu = m_gpuNames.find(*e->environmentId);
        return gpu == m_gpuNames.end()
                   ? std::nullopt
                   : m_published.compare(taskId, gpu->second, e->candidate->series.medianMs);
    }

    std::vector<db::FindingRow> findings(db::Id attemptId) {
        std::vector<db::FindingRow> out;
        m_findings.bind(1, attemptId);
        while (m_findings.step())
            out.push_back(
                {m_findings.text(0), m_findings.text(1), m_findings.text(2), m_findings.text(3)});
        m_findings.reset();
        return out;
    }

private:
    db::Statement m_evaluation;
    db::Statement m_series;
    db::Statement m_samples;
    db::Statement m_findings;
    db::Statement m_timing;
    AttemptUsageReader m_usage;
    PublishedBaselines m_published;
    std::map<db::Id, std::string> m_gpuNames;
};

Json columnValue(const db::Statement& q, int col) {
    switch (q.type(col)) {
    case db::Statement::Type::Integer:
        return Json(q.int64(col));
    case db::Statement::Type::Real:
        return optionalNumber(q.real(col));
    case db::Statement::Type::Text:
        return Json(q.text(col));
    case db::Statement::Type::Blob: {
        // No attempt column holds bytes today; should one, its hex keeps the export text.
        return Json(QByteArray::fromStdString(q.text(col)).toHex().toStdString());
    }
    case db::Statement::Type::Null:
        break;
    }
    return Json(nullptr);
}

// One attempt row of kAttemptStream as the export's attempt object: the documented fields
// (the same as attemptJson) first, then every other stored column under its own name.
Json streamedAttempt(const db::Statement& q, int stored, AttemptDetails& details) {
    std::map<std::string, int> column;
    for (int i = 0; i < stored; ++i)
        column.emplace(q.columnName(i), i);
    const auto text = [&](const char* name) { return q.text(column.at(name)); };
    const auto optText = [&](const char* name) {
        const int c = column.at(name);
        return q.isNull(c) ? Json(nullptr) : Json(q.text(c));
    };
    const auto optReal = [&](const char* name) {
        return optionalNumber(q.optReal(column.at(name)));
    };
    const db::Id id = q.int64(column.at("id"));
    Json findings = Json::array();
    for (const auto& f : details.findings(id)) {
        findings.push_back(Json{{"rule", f.rule},
                                {"severity", f.severity},
                                {"location", f.location},
                                {"message", f.message}});
    }
    const auto evaluation = details.evaluation(id);
    Json a{{"attempt_id", id},
           {"run_id", q.int64(column.at("run_id"))},
           {"model", q.text(stored)},
           {"task_key", q.text(stored + 1)},
           {"task_name", q.text(stored + 2)},
           {"level", q.int32(stored + 3)},
           {"sample_index", q.int32(column.at("sample_index"))},
           {"mode", text("mode")},
           {"status", text("status")},
           {"verdict", text("verdict")},
           {"review", text("review")},
           {"review_note", text("review_note")},
           {"suspicious", q.int64(column.at("suspicious")) != 0},
           {"scores", q.int64(stored + 7) != 0},
           {"speedup_eager", optReal("speedup_eager")},
           {"speedup_compile", optReal("speedup_compile")},
           {"input_tokens", q.int64(stored + 4)},
           {"output_tokens", q.int64(stored + 5)},
           {"turns", q.int32(stored + 6)},
           {"started_at", optText("started_at")},
           {"finished_at", optText("finished_at")},
           {"message", text("message")},
           {"evaluation", evaluation ? evaluationJson(*evaluation, true) : Json(nullptr)},
           {"findings", findings}};
    addTimingFields(a, details.timing(id));
    addUsageFields(a, details.usage(id));
    addPublishedFields(a, details.published(q.int64(column.at("task_id")), evaluation));
    for (int i = 0; i < stored; ++i) {
        const std::string name = q.columnName(i);
        if (name != "id" && !a.contains(name))
            a[name] = columnValue(q, i);
    }
    return a;
}

class Writer {
public:
    explicit Writer(QIODevice& out)
        : m_out(out) {}
    void write(const std::string& text) {
        m_buffer += text;
        if (m_buffer.size() >= (1u << 20))
            flush();
    }
    void flush() {
        if (m_buffer.empty())
            return;
        if (m_out.write(m_buffer.data(), static_cast<qint64>(m_buffer.size())) !=
            static_cast<qint64>(m_buffer.size()))
            throw engine::Error(
                QStringLiteral("cannot write the export: %1").arg(m_out.errorString()));
        m_buffer.clear();
    }

private:
    QIODevice& m_out;
    std::string m_buffer;
};

} // namespace

qint64 writeJsonExport(db::Connection& conn, const ExportFilter& filter, QIODevice& out) {
    db::RunRepository repository(conn);
    std::vector<db::RunRow> runs;
    if (filter.runId != 0) {
        auto run = repository.run(filter.runId);
        if (!run) {
            throw engine::Error(QStringLiteral("no run with id %1 in '%2'")
                                    .arg(filter.runId)
                                    .arg(QString::fromStdString(conn.path())));
        }
        runs.push_back(*run);
    } else {
        runs = repository.runs();
        std::sort(runs.begin(), runs.end(),
                  [](const db::RunRow& a, const db::RunRow& b) { return a.id < b.id; });
    }
    validateFilter(conn, filter);
    ReportData board;
    board.leaderboard = streamLeaderboard(conn, filter);
    std::string head =
        headJson(filter, runs, streamEnvironments(conn, filter), leaderboardJson(board))
            .dump(2, ' ', false, Json::error_handler_t::replace);
    head.resize(head.size() - 2); // the closing "\n}": the attempts follow
    Writer writer(out);
    writer.write(head + ",\n  \"attempts\": [");

    AttemptDetails details(conn);
    db::Statement q(conn, kAttemptStream);
    q.bind(1, filter.runId);
    const int stored = q.columnCount() - kJoinedColumns;
    const int verdictColumn = [&] {
        for (int i = 0; i < stored; ++i)
            if (q.columnName(i) == "verdict")
                return i;
        throw db::Error("the attempts table has no verdict column");
    }();
    qint64 written = 0;
    while (q.step()) {
        if (!selectedRow(filter, q.text(stored), q.int32(stored + 3)) ||
            !verdictMatches(filter, q.text(verdictColumn)))
            continue;
        writer.write((written ? ",\n    " : "\n    ") +
                     streamedAttempt(q, stored, details)
                         .dump(-1, ' ', false, Json::error_handler_t::replace));
        ++written;
    }
    writer.write(written ? "\n  ]\n}\n" : "]\n}\n");
    writer.flush();
    return written;
}

} // namespace kb::report
