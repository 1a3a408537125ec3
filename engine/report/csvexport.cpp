#include "csvexport.h"

#include "runsettingssummary.h"
#include "textformat.h"

#include <map>

namespace kb::report {

namespace {

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

QString boolean(bool value) {
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

QString integer(long long value) {
    return QString::number(value);
}

void appendRow(QString& out, const QStringList& fields) {
    QStringList escaped;
    escaped.reserve(fields.size());
    for (const auto& f : fields)
        escaped << csvField(f);
    out += escaped.join(QLatin1Char(',')) + QLatin1Char('\n');
}

QString findingRules(const std::vector<db::FindingRow>& findings) {
    QStringList rules;
    for (const auto& f : findings)
        rules << text(f.rule) + QLatin1Char(':') + text(f.severity);
    return rules.join(QLatin1Char(';'));
}

QString joinedSnapshots(const std::vector<std::string>& snapshots) {
    QStringList names;
    for (const auto& s : snapshots)
        names << text(s);
    return names.join(QLatin1Char(';'));
}

// The run settings every CSV row carries (runsettingssummary.h keys).
constexpr const char* kSettingsColumns[] = {"precision",    "tolerance",       "tf32",
                                            "compile_mode", "prompt_template", "program_version"};

QString optionalRate(const std::optional<double>& v) {
    return v ? formatNumber(roundDerived(*v)) : QString();
}

// The distinct values of one settings fact over the runs, joined with " | ".
QString factOverRuns(const std::vector<db::RunRow>& runs, const QString& key) {
    QStringList values;
    for (const auto& r : runs) {
        const QString v = settingsFact(runSettingsFacts(r), key);
        if (!values.contains(v))
            values << v;
    }
    return values.join(QStringLiteral(" | "));
}

} // namespace

QStringList leaderboardCsvColumns() {
    QStringList c{QStringLiteral("model"),
                  QStringLiteral("level"),
                  QStringLiteral("tasks"),
                  QStringLiteral("correct"),
                  QStringLiteral("pass_rate"),
                  QStringLiteral("pass_rate_low"),
                  QStringLiteral("pass_rate_high"),
                  QStringLiteral("pass_at_1"),
                  QStringLiteral("k"),
                  QStringLiteral("pass_at_k"),
                  QStringLiteral("fast_1_eager"),
                  QStringLiteral("fast_1_compile"),
                  QStringLiteral("geomean_eager"),
                  QStringLiteral("geomean_eager_low"),
                  QStringLiteral("geomean_eager_high"),
                  QStringLiteral("geomean_compile"),
                  QStringLiteral("geomean_compile_low"),
                  QStringLiteral("geomean_compile_high"),
                  QStringLiteral("geomean_fallback_eager")};
    for (const char* key : kSettingsColumns)
        c << QString::fromLatin1(key);
    return c;
}

QByteArray leaderboardCsv(const ReportData& data) {
    const auto& b = data.leaderboard;
    QString out;
    appendRow(out, leaderboardCsvColumns());
    const int k = b.passAtKs.empty() ? 1 : b.passAtKs.back();
    QStringList settings;
    for (const char* key : kSettingsColumns)
        settings << factOverRuns(data.runs, QString::fromLatin1(key));
    auto cellRow = [&](const metrics::LeaderboardCell& c) {
        const auto* p1 = c.passAtKAt(1);
        const auto* pk = c.passAtKAt(k);
        const auto* f1 = c.fastPAt(1.0);
        QStringList row{
            text(c.model),
            c.level == metrics::kOverallLevel ? QStringLiteral("overall") : integer(c.level),
            integer(c.tasks),
            integer(c.correct),
            formatNumber(roundDerived(c.passRate)),
            c.passRateCi ? formatNumber(roundDerived(c.passRateCi->low)) : QString(),
            c.passRateCi ? formatNumber(roundDerived(c.passRateCi->high)) : QString(),
            p1 ? optionalRate(p1->value) : QString(),
            integer(k),
            pk ? optionalRate(pk->value) : QString(),
            f1 ? formatNumber(roundDerived(f1->vsEager)) : QString(),
            f1 ? optionalRate(f1->vsCompile) : QString(),
            optionalRate(c.geomeanEager),
            c.geomeanEagerCi ? formatNumber(roundDerived(c.geomeanEagerCi->low)) : QString(),
            c.geomeanEagerCi ? formatNumber(roundDerived(c.geomeanEagerCi->high)) : QString(),
            optionalRate(c.geomeanCompile),
            c.geomeanCompileCi ? formatNumber(roundDerived(c.geomeanCompileCi->low)) : QString(),
            c.geomeanCompileCi ? formatNumber(roundDerived(c.geomeanCompileCi->high)) : QString(),
            optionalRate(c.geomeanFallbackEager)};
        appendRow(out, row + settings);
    };
    for (const auto& c : b.cells)
        cellRow(c);
    for (const auto& c : b.overall)
        cellRow(c);
    return out.toUtf8();
}

QStringList attemptsCsvColumns() {
    return {
        QStringLiteral("attempt_id"), QStringLiteral("run_id"), QStringLiteral("model"),
        QStringLiteral("task_key"), QStringLiteral("task_name"), QStringLiteral("level"),
        QStringLiteral("sample_index"), QStringLiteral("mode"), QStringLiteral("status"),
        QStringLiteral("verdict"), QStringLiteral("review"), QStringLiteral("suspicious"),
        QStringLiteral("scores"), QStringLiteral("speedup_eager"),
        QStringLiteral("speedup_compile"), QStringLiteral("candidate_median_ms"),
        QStringLiteral("candidate_mean_ms"), QStringLiteral("candidate_std_ms"),
        QStringLiteral("candidate_min_ms"), QStringLiteral("candidate_max_ms"),
        QStringLiteral("candidate_samples"), QStringLiteral("eager_median_ms"),
        QStringLiteral("compile_median_ms"), QStringLiteral("correctness_trials"),
        QStringLiteral("correctness_passed"), QStringLiteral("max_abs_error"),
        QStringLiteral("max_rel_error"), QStringLiteral("build_status"),
        QStringLiteral("build_seconds"), QStringLiteral("input_tokens"),
        QStringLiteral("output_tokens"), QStringLiteral("turns"), QStringLiteral("evaluation_id"),
        QStringLiteral("environment_id"), QStringLiteral("device_name"), QStringLiteral("findings"),
        QStringLiteral("started_at"), QStringLiteral("finished_at"), QStringLiteral("message"),
        // schema 7: how sure the speedups are
        QStringLiteral("speedup_eager_low"), QStringLiteral("speedup_eager_high"),
        QStringLiteral("speedup_compile_low"), QStringLiteral("speedup_compile_high"),
        QStringLiteral("noisy"), QStringLiteral("timing_regime"),
        // what generating it cost, and who served it
        QStringLiteral("cost_usd"), QStringLiteral("cache_read_tokens"),
        QStringLiteral("cache_write_tokens"), QStringLiteral("latency_ms"),
        QStringLiteral("provider"), QStringLiteral("base_url_host"),
        // schema 9: how fast the answers began, and the exact model behind them
        QStringLiteral("ttft_ms"), QStringLiteral("ttft_turns"), QStringLiteral("model_snapshots"),
        // KernelBench's published eager time on the same GPU model (a reference only)
        QStringLiteral("published_device"), QStringLiteral("published_eager_ms"),
        QStringLiteral("speedup_published_eager"),
        // the run's settings that change what the numbers mean
        QStringLiteral("precision"), QStringLiteral("tolerance"), QStringLiteral("tf32"),
        QStringLiteral("compile_mode"), QStringLiteral("prompt_template"),
        QStringLiteral("program_version")};
}

QByteArray attemptsCsv(const ReportData& data) {
    QString out;
    appendRow(out, attemptsCsvColumns());
    std::map<db::Id, QList<SettingsFact>> settingsByRun;
    for (const auto& r : data.runs)
        settingsByRun.emplace(r.id, runSettingsFacts(r));
    for (const auto& rec : data.attempts) {
        const auto& a = rec.attempt;
        const EvaluationSummary* e = rec.evaluation ? &*rec.evaluation : nullptr;
        const SeriesSummary* cand = e && e->candidate ? &*e->candidate : nullptr;
        const db::EnvironmentRow* env =
            e && e->environmentId ? data.environment(*e->environmentId) : nullptr;
        QStringList row;
        row << integer(a.id) << integer(a.runId) << text(a.modelName) << text(a.taskKey)
            << text(a.taskName) << integer(a.level) << integer(a.sampleIndex) << text(a.mode)
            << text(a.status) << text(a.verdict) << text(a.review) << boolean(a.suspicious)
            << boolean(rec.scores) << formatOptional(a.speedupEager)
            << formatOptional(a.speedupCompile);
        if (cand) {
            row << formatNumber(cand->series.medianMs) << formatNumber(cand->series.meanMs)
                << formatNumber(cand->series.stdMs) << formatNumber(cand->series.minMs)
                << formatNumber(cand->series.maxMs) << integer(cand->sampleCount);
        } else {
            row << QString() << QString() << QString() << QString() << QString() << QString();
        }
        row << (e && e->eager ? formatNumber(e->eager->series.medianMs) : QString())
            << (e && e->compile ? formatNumber(e->compile->series.medianMs) : QString());
        if (e) {
            row << integer(e->trials) << integer(e->trialsPassed) << formatOptional(e->maxAbsError)
                << formatOptional(e->maxRelError) << text(e->buildStatus)
                << formatOptional(e->buildSeconds);
        } else {
            row << QString() << QString() << QString() << QString() << QString() << QString();
        }
        row << integer(a.inputTokens) << integer(a.outputTokens) << integer(a.turns)
            << (e ? integer(e->id) : QString())
            << (e && e->environmentId ? integer(*e->environmentId) : QString())
            << (env ? text(env->deviceName.empty() ? env->device : env->deviceName) : QString())
            << findingRules(rec.findings) << text(a.startedAt.value_or(std::string()))
            << text(a.finishedAt.value_or(std::string())) << text(a.message);
        const auto& u = a.uncertainty;
        row << formatOptional(u.eagerLow) << formatOptional(u.eagerHigh)
            << formatOptional(u.compileLow) << formatOptional(u.compileHigh) << boolean(u.noisy())
            << text(u.regime);
        row << formatOptional(rec.usage.costUsd) << integer(rec.usage.cacheReadTokens)
            << integer(rec.usage.cacheWriteTokens) << formatNumber(rec.usage.latencyMs)
            << text(rec.usage.provider) << text(rec.usage.baseUrlHost)
            << formatOptional(rec.usage.meanTtftMs()) << integer(rec.usage.ttftTurns)
            << joinedSnapshots(rec.usage.modelSnapshots);
        if (rec.published) {
            row << text(rec.published->device) << formatNumber(rec.published->publishedMs)
                << formatNumber(rec.published->speedup);
        } else {
            row << QString() << QString() << QString();
        }
        const auto facts = settingsByRun.find(a.runId);
        for (const char* key : kSettingsColumns)
            row << (facts == settingsByRun.end()
                        ? QString()
                        : settingsFact(facts->second, QString::fromLatin1(key)));
        appendRow(out, row);
    }
    return out.toUtf8();
}

QStringList timingSamplesCsvColumns() {
    return {QStringLiteral("attempt_id"),   QStringLiteral("evaluation_id"),
            QStringLiteral("series_id"),    QStringLiteral("model"),
            QStringLiteral("task_key"),     QStringLiteral("level"),
            QStringLiteral("sample_index"), QStringLiteral("kind"),
            QStringLiteral("trial"),        QStringLiteral("ms")};
}

QByteArray timingSamplesCsv(const ReportData& data) {
    QString out;
    appendRow(out, timingSamplesCsvColumns());
    for (const auto& rec : data.attempts) {
        if (!rec.evaluation)
            continue;
        const auto& a = rec.attempt;
        for (const auto* s :
             {&rec.evaluation->candidate, &rec.evaluation->eager, &rec.evaluation->compile}) {
            if (!*s)
                continue;
            const auto& series = (*s)->series;
            for (size_t i = 0; i < series.samplesMs.size(); ++i) {
                appendRow(out,
                          {integer(a.id), integer(rec.evaluation->id), integer(series.id),
                           text(a.modelName), text(a.taskKey), integer(a.level),
                           integer(a.sampleIndex), text(series.kind),
                           integer(static_cast<long long>(i)), formatNumber(series.samplesMs[i])});
            }
        }
    }
    return out.toUtf8();
}

} // namespace kb::report
