#include "csvexport.h"

#include "textformat.h"

namespace kb::report {

namespace {

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

QString boolean(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

QString integer(long long value)
{
    return QString::number(value);
}

void appendRow(QString& out, const QStringList& fields)
{
    QStringList escaped;
    escaped.reserve(fields.size());
    for (const auto& f : fields)
        escaped << csvField(f);
    out += escaped.join(QLatin1Char(',')) + QLatin1Char('\n');
}

QString findingRules(const std::vector<db::FindingRow>& findings)
{
    QStringList rules;
    for (const auto& f : findings)
        rules << text(f.rule) + QLatin1Char(':') + text(f.severity);
    return rules.join(QLatin1Char(';'));
}

} // namespace

QStringList attemptsCsvColumns()
{
    return {QStringLiteral("attempt_id"),        QStringLiteral("run_id"),
            QStringLiteral("model"),             QStringLiteral("task_key"),
            QStringLiteral("task_name"),         QStringLiteral("level"),
            QStringLiteral("sample_index"),      QStringLiteral("mode"),
            QStringLiteral("status"),            QStringLiteral("verdict"),
            QStringLiteral("review"),            QStringLiteral("suspicious"),
            QStringLiteral("scores"),            QStringLiteral("speedup_eager"),
            QStringLiteral("speedup_compile"),   QStringLiteral("candidate_median_ms"),
            QStringLiteral("candidate_mean_ms"), QStringLiteral("candidate_std_ms"),
            QStringLiteral("candidate_min_ms"),  QStringLiteral("candidate_max_ms"),
            QStringLiteral("candidate_samples"), QStringLiteral("eager_median_ms"),
            QStringLiteral("compile_median_ms"), QStringLiteral("correctness_trials"),
            QStringLiteral("correctness_passed"), QStringLiteral("max_abs_error"),
            QStringLiteral("max_rel_error"),     QStringLiteral("build_status"),
            QStringLiteral("build_seconds"),     QStringLiteral("input_tokens"),
            QStringLiteral("output_tokens"),     QStringLiteral("turns"),
            QStringLiteral("evaluation_id"),     QStringLiteral("environment_id"),
            QStringLiteral("device_name"),       QStringLiteral("findings"),
            QStringLiteral("started_at"),        QStringLiteral("finished_at"),
            QStringLiteral("message"),
            // schema 7: how sure the speedups are
            QStringLiteral("speedup_eager_low"), QStringLiteral("speedup_eager_high"),
            QStringLiteral("speedup_compile_low"), QStringLiteral("speedup_compile_high"),
            QStringLiteral("noisy"),             QStringLiteral("timing_regime"),
            // what generating it cost, and who served it
            QStringLiteral("cost_usd"),          QStringLiteral("cache_read_tokens"),
            QStringLiteral("cache_write_tokens"), QStringLiteral("latency_ms"),
            QStringLiteral("provider"),          QStringLiteral("base_url_host")};
}

QByteArray attemptsCsv(const ReportData& data)
{
    QString out;
    appendRow(out, attemptsCsvColumns());
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
            << text(rec.usage.provider) << text(rec.usage.baseUrlHost);
        appendRow(out, row);
    }
    return out.toUtf8();
}

QStringList timingSamplesCsvColumns()
{
    return {QStringLiteral("attempt_id"), QStringLiteral("evaluation_id"),
            QStringLiteral("series_id"),  QStringLiteral("model"),
            QStringLiteral("task_key"),   QStringLiteral("level"),
            QStringLiteral("sample_index"), QStringLiteral("kind"),
            QStringLiteral("trial"),      QStringLiteral("ms")};
}

QByteArray timingSamplesCsv(const ReportData& data)
{
    QString out;
    appendRow(out, timingSamplesCsvColumns());
    for (const auto& rec : data.attempts) {
        if (!rec.evaluation)
            continue;
        const auto& a = rec.attempt;
        for (const auto* s : {&rec.evaluation->candidate, &rec.evaluation->eager,
                              &rec.evaluation->compile}) {
            if (!*s)
                continue;
            const auto& series = (*s)->series;
            for (size_t i = 0; i < series.samplesMs.size(); ++i) {
                appendRow(out, {integer(a.id), integer(rec.evaluation->id), integer(series.id),
                                text(a.modelName), text(a.taskKey), integer(a.level),
                                integer(a.sampleIndex), text(series.kind),
                                integer(static_cast<long long>(i)),
                                formatNumber(series.samplesMs[i])});
            }
        }
    }
    return out.toUtf8();
}

} // namespace kb::report
