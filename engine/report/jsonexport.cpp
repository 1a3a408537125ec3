#include "jsonexport.h"

#include "textformat.h"

#include <QJsonDocument>

#include <nlohmann/json.hpp>

namespace kb::report {

namespace {

using Json = nlohmann::ordered_json;

Json optionalNumber(const std::optional<double>& value)
{
    return value ? Json(*value) : Json(nullptr);
}

Json derived(const std::optional<double>& value)
{
    return value ? Json(roundDerived(*value)) : Json(nullptr);
}

Json filterJson(const ExportFilter& f)
{
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

Json runJson(const db::RunRow& r)
{
    const QByteArray settings = QJsonDocument(publicRunSettings(r)).toJson(QJsonDocument::Compact);
    return Json{{"id", r.id},
                {"name", r.name},
                {"suite", r.suiteName},
                {"mode", r.mode},
                {"status", r.status},
                {"created_at", r.createdAt},
                {"settings", Json::parse(settings.toStdString(), nullptr, false)}};
}

Json environmentJson(const db::EnvironmentRow& e)
{
    return Json{{"id", e.id},          {"fingerprint", e.fingerprint}, {"device", e.device},
                {"device_name", e.deviceName}, {"torch", e.torch},     {"python", e.python},
                {"cuda", e.cuda},      {"driver", e.driver}};
}

Json cellJson(const metrics::LeaderboardCell& c)
{
    Json fastP = Json::array();
    for (const auto& f : c.fastP) {
        fastP.push_back(Json{{"p", f.p},
                             {"vs_eager", roundDerived(f.vsEager)},
                             {"vs_compile", derived(f.vsCompile)}});
    }
    Json ci = nullptr;
    if (c.passRateCi)
        ci = Json::array({roundDerived(c.passRateCi->low), roundDerived(c.passRateCi->high)});
    return Json{{"model", c.model},
                {"level", c.level},
                {"tasks", c.tasks},
                {"attempted", c.attempted},
                {"built", c.built},
                {"correct", c.correct},
                {"timed", c.timed},
                {"pass_rate", roundDerived(c.passRate)},
                {"pass_rate_ci", ci},
                {"fast_p", fastP},
                {"geomean_eager", derived(c.geomeanEager)},
                {"geomean_compile", derived(c.geomeanCompile)},
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

Json leaderboardJson(const ReportData& data)
{
    const auto& b = data.leaderboard;
    Json levels = Json::array();
    for (int level : b.levels) {
        levels.push_back(Json{{"level", level},
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
    return Json{{"levels", levels}, {"cells", cells}, {"overall", overall}};
}

Json seriesJson(const SeriesSummary& s, bool withSamples)
{
    Json j{{"series_id", s.series.id},
           {"samples", s.sampleCount},
           {"median_ms", s.series.medianMs},
           {"mean_ms", s.series.meanMs},
           {"std_ms", s.series.stdMs},
           {"min_ms", s.series.minMs},
           {"max_ms", s.series.maxMs},
           {"wall_ms", optionalNumber(s.series.wallMs)}};
    if (withSamples)
        j["samples_ms"] = s.series.samplesMs;
    return j;
}

Json evaluationJson(const EvaluationSummary& e, bool withSamples)
{
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
                {"correctness",
                 Json{{"passed", e.correctnessPassed},
                      {"trials", e.trials},
                      {"trials_passed", e.trialsPassed},
                      {"max_abs_error", optionalNumber(e.maxAbsError)},
                      {"max_rel_error", optionalNumber(e.maxRelError)}}},
                {"build", build},
                {"harness_seconds", e.harnessSeconds},
                {"timing", timing}};
}

Json attemptJson(const AttemptRecord& rec, bool withSamples)
{
    const auto& a = rec.attempt;
    Json findings = Json::array();
    for (const auto& f : rec.findings) {
        findings.push_back(Json{{"rule", f.rule},
                                {"severity", f.severity},
                                {"location", f.location},
                                {"message", f.message}});
    }
    return Json{{"attempt_id", a.id},
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
                {"evaluation", rec.evaluation ? evaluationJson(*rec.evaluation, withSamples)
                                              : Json(nullptr)},
                {"findings", findings}};
}

} // namespace

QByteArray attemptsJson(const ReportData& data)
{
    const bool withSamples = data.timingSamplesLoaded;
    Json runs = Json::array();
    for (const auto& r : data.runs)
        runs.push_back(runJson(r));
    Json environments = Json::array();
    for (const auto& e : data.environments)
        environments.push_back(environmentJson(e));
    Json attempts = Json::array();
    for (const auto& rec : data.attempts)
        attempts.push_back(attemptJson(rec, withSamples));
    const Json doc{{"format", "kbstudio-export"},
                   {"format_version", kJsonExportVersion},
                   {"filter", filterJson(data.filter)},
                   {"runs", runs},
                   {"environments", environments},
                   {"leaderboard", leaderboardJson(data)},
                   {"attempts", attempts}};
    return QByteArray::fromStdString(doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

} // namespace kb::report
