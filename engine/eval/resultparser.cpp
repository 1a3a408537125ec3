#include "resultparser.h"

#include "core/hashing.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace kb::engine {
namespace {

const QStringList kVerdicts = {QStringLiteral("correct"),          QStringLiteral("incorrect"),
                               QStringLiteral("build_error"),      QStringLiteral("runtime_error"),
                               QStringLiteral("timeout"),          QStringLiteral("rejected"),
                               QStringLiteral("invalid_candidate")};

std::optional<double> optNumber(const QJsonObject& o, const QString& key) {
    const auto v = o.value(key);
    if (!v.isDouble())
        return std::nullopt;
    return v.toDouble();
}

std::string compact(const QJsonValue& v) {
    if (v.isArray())
        return QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact).toStdString();
    if (v.isObject())
        return QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact).toStdString();
    return "[]";
}

// Returns an empty optional and sets error when the series is malformed.
std::optional<db::TimingSeriesRow> readSeries(const QJsonObject& o, const QString& kind,
                                              QString& error) {
    const auto samples = o.value(QStringLiteral("samples_ms")).toArray();
    if (samples.isEmpty()) {
        error = QStringLiteral("timing '%1' has no samples").arg(kind);
        return std::nullopt;
    }
    db::TimingSeriesRow s;
    s.kind = kind.toStdString();
    for (const auto& v : samples) {
        const double ms = v.toDouble(-1);
        if (!v.isDouble() || !std::isfinite(ms) || ms <= 0) {
            error =
                QStringLiteral("timing '%1' has a sample that is not a positive number").arg(kind);
            return std::nullopt;
        }
        s.samplesMs.push_back(ms);
    }
    const auto stats = computeStats(s.samplesMs);
    s.medianMs = stats.median;
    s.meanMs = stats.mean;
    s.stdMs = stats.std;
    s.minMs = stats.min;
    s.maxMs = stats.max;
    s.wallMs = optNumber(o, QStringLiteral("wall_ms"));
    return s;
}

// One baseline of timing.comparison: the harness's ratio of medians from interleaved blocks
// and its interval. Entries that are not a finite positive speedup inside a well-ordered
// interval are ignored (the plain median ratio is used instead).
struct ComparedSpeedup {
    double speedup = 0;
    std::optional<double> low;
    std::optional<double> high;
    bool noisy = false;
};

struct Comparison {
    std::optional<ComparedSpeedup> eager;
    std::optional<ComparedSpeedup> compile;
    QString regime;
    std::optional<double> targetHalfwidth;
};

bool positive(std::optional<double> v) {
    return v && std::isfinite(*v) && *v > 0;
}

std::optional<ComparedSpeedup> readCompared(const QJsonValue& value) {
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject o = value.toObject();
    const auto speedup = optNumber(o, QStringLiteral("speedup"));
    if (!positive(speedup))
        return std::nullopt;
    ComparedSpeedup c;
    c.speedup = *speedup;
    const auto low = optNumber(o, QStringLiteral("ci_low"));
    const auto high = optNumber(o, QStringLiteral("ci_high"));
    if (positive(low) && positive(high) && *low <= c.speedup && c.speedup <= *high) {
        c.low = low;
        c.high = high;
    }
    c.noisy = o.value(QStringLiteral("noisy")).toBool(false);
    return c;
}

Comparison readComparison(const QJsonValue& value) {
    Comparison c;
    if (!value.isObject())
        return c;
    const QJsonObject o = value.toObject();
    c.eager = readCompared(o.value(QStringLiteral("eager")));
    c.compile = readCompared(o.value(QStringLiteral("compile")));
    const QString regime = o.value(QStringLiteral("regime")).toString();
    if (regime == QLatin1String("device-bound") || regime == QLatin1String("launch-bound") ||
        regime == QLatin1String("cpu"))
        c.regime = regime;
    // The half-width beyond which the harness calls a measurement noisy (older documents name
    // only the precision target it aims at).
    for (const auto* key : {"noisy_rel_halfwidth", "target_rel_halfwidth"}) {
        const auto limit = optNumber(o, QLatin1String(key));
        if (positive(limit) && !c.targetHalfwidth)
            c.targetHalfwidth = limit;
    }
    return c;
}

QString percent(double fraction) {
    return QString::number(fraction * 100.0, 'g', 3) + QLatin1Char('%');
}

QString intervalText(std::optional<double> low, std::optional<double> high) {
    if (!low || !high)
        return QStringLiteral("no interval");
    return QStringLiteral("95% interval [%1, %2]")
        .arg(QString::number(*low, 'g', 3), QString::number(*high, 'g', 3));
}

db::FindingRow noisyFinding(const db::SpeedupUncertainty& u, std::optional<double> target) {
    QStringList which;
    if (u.noisyEager)
        which << QStringLiteral("vs eager (%1)").arg(intervalText(u.eagerLow, u.eagerHigh));
    if (u.noisyCompile)
        which << QStringLiteral("vs compile (%1)").arg(intervalText(u.compileLow, u.compileHigh));
    QString message = QStringLiteral("the speedup %1 did not reach the precision target")
                          .arg(which.join(QStringLiteral(" and ")));
    if (target)
        message += QStringLiteral(" of ±%1").arg(percent(*target));
    message += QStringLiteral(" within the time cap");
    if (!u.regime.empty())
        message += QStringLiteral(" (%1 task)").arg(QString::fromStdString(u.regime));
    message += QStringLiteral("; fast_p counts it only when its interval clears the threshold");
    return {"noisy-timing", "info", "", message.toStdString()};
}

} // namespace

TimingStats computeStats(const std::vector<double>& samples) {
    TimingStats st;
    if (samples.empty())
        return st;
    std::vector<double> v = samples;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    st.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    st.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
    double ss = 0;
    for (double x : v)
        ss += (x - st.mean) * (x - st.mean);
    st.std = n > 1 ? std::sqrt(ss / static_cast<double>(n - 1)) : 0;
    st.min = v.front();
    st.max = v.back();
    return st;
}

ParsedResult parseHarnessResult(const QByteArray& json, const EvalSettings& settings,
                                const QString& taskHash) {
    ParsedResult out;
    QJsonParseError perr{};
    const auto doc = QJsonDocument::fromJson(json, &perr);
    if (perr.error != QJsonParseError::NoError || !doc.isObject()) {
        out.error =
            QStringLiteral("the harness result is not a JSON object (%1)").arg(perr.errorString());
        return out;
    }
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("schema")).toString() != QLatin1String(kResultSchema)) {
        out.error =
            QStringLiteral("the harness result has schema '%1', expected '%2'")
                .arg(root.value(QStringLiteral("schema")).toString(), QLatin1String(kResultSchema));
        return out;
    }
    const QString verdict = root.value(QStringLiteral("verdict")).toString();
    if (!kVerdicts.contains(verdict)) {
        out.error = QStringLiteral("the harness result has an unknown verdict '%1'").arg(verdict);
        return out;
    }

    auto& rec = out.record;
    rec.evaluation.verdict = verdict.toStdString();
    rec.evaluation.message = root.value(QStringLiteral("message")).toString().toStdString();
    rec.evaluation.harnessSeconds = root.value(QStringLiteral("harness_seconds")).toDouble();
    rec.evaluation.settingsJson =
        QJsonDocument(settings.toJson()).toJson(QJsonDocument::Compact).toStdString();
    rec.evaluation.resultJson = QJsonDocument(root).toJson(QJsonDocument::Compact).toStdString();

    for (const auto& v : root.value(QStringLiteral("static_findings")).toArray()) {
        const auto f = v.toObject();
        db::FindingRow row;
        row.rule = f.value(QStringLiteral("rule")).toString().toStdString();
        row.severity = f.value(QStringLiteral("severity")).toString().toStdString();
        if (row.severity != "reject" && row.severity != "suspicious" && row.severity != "info")
            row.severity = "info";
        const int line = f.value(QStringLiteral("line")).toInt(0);
        row.location = line > 0 ? "line " + std::to_string(line) : std::string();
        row.message = f.value(QStringLiteral("message")).toString().toStdString();
        rec.findings.push_back(std::move(row));
    }

    const auto build = root.value(QStringLiteral("build")).toObject();
    if (!build.isEmpty()) {
        db::BuildRow b;
        b.status =
            build.value(QStringLiteral("status")).toString(QStringLiteral("skipped")).toStdString();
        if (b.status != "ok" && b.status != "cached" && b.status != "failed" &&
            b.status != "skipped")
            b.status = "failed";
        b.seconds = build.value(QStringLiteral("seconds")).toDouble();
        b.cacheKey = build.value(QStringLiteral("cache_key")).toString().toStdString();
        b.log = build.value(QStringLiteral("log")).toString().toStdString();
        b.errorsJson = compact(build.value(QStringLiteral("errors")));
        rec.build = b;
    }

    const auto correctness = root.value(QStringLiteral("correctness")).toObject();
    std::vector<double> maxAbs;
    for (const auto& v : correctness.value(QStringLiteral("trials")).toArray()) {
        const auto t = v.toObject();
        db::TrialRow trial;
        trial.index = t.value(QStringLiteral("index")).toInt(static_cast<int>(rec.trials.size()));
        trial.passed = t.value(QStringLiteral("passed")).toBool();
        trial.maxAbsError = optNumber(t, QStringLiteral("max_abs_error"));
        trial.maxRelError = optNumber(t, QStringLiteral("max_rel_error"));
        trial.mismatchFraction = optNumber(t, QStringLiteral("mismatch_fraction"));
        trial.message = t.value(QStringLiteral("message")).toString().toStdString();
        if (trial.maxAbsError)
            maxAbs.push_back(*trial.maxAbsError);
        if (trial.maxRelError)
            rec.evaluation.maxRelError =
                std::max(rec.evaluation.maxRelError.value_or(0), *trial.maxRelError);
        rec.trials.push_back(std::move(trial));
    }
    const bool allPassed =
        !rec.trials.empty() && std::all_of(rec.trials.begin(), rec.trials.end(),
                                           [](const db::TrialRow& t) { return t.passed; });
    rec.evaluation.correctnessPassed = allPassed;
    if (!maxAbs.empty()) {
        rec.evaluation.maxAbsError = *std::max_element(maxAbs.begin(), maxAbs.end());
        rec.evaluation.meanAbsError =
            std::accumulate(maxAbs.begin(), maxAbs.end(), 0.0) / static_cast<double>(maxAbs.size());
    }

    const auto env = root.value(QStringLiteral("environment")).toObject();
    out.device = env.value(QStringLiteral("device")).toString(settings.device);
    out.deviceName = env.value(QStringLiteral("device_name")).toString();
    out.torchVersion = env.value(QStringLiteral("torch")).toString();
    if (!env.isEmpty()) {
        db::EnvironmentRow e;
        const QByteArray details = QJsonDocument(env).toJson(QJsonDocument::Compact);
        e.fingerprint = sha256Hex(details).toStdString();
        e.device = out.device.toStdString();
        e.deviceName = out.deviceName.toStdString();
        e.torch = out.torchVersion.toStdString();
        e.python = env.value(QStringLiteral("python")).toString().toStdString();
        e.cuda = env.value(QStringLiteral("cuda")).toString().toStdString();
        e.driver = env.value(QStringLiteral("driver")).toVariant().toString().toStdString();
        e.detailsJson = details.toStdString();
        rec.environment = e;
    }

    // NVML readings around the timed loop (GPU runs where NVML answers).
    const auto gpu = root.value(QStringLiteral("gpu_state")).toObject();
    for (const auto* phase : {"before", "after"}) {
        const auto reading = gpu.value(QLatin1String(phase)).toObject();
        if (reading.isEmpty())
            continue;
        db::GpuSampleRow g;
        g.phase = phase;
        g.gpuIndex = gpu.value(QStringLiteral("gpu_index")).toInt();
        auto num = [&](const char* key) -> std::optional<double> {
            const auto v = reading.value(QLatin1String(key));
            return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
        };
        g.smClockMhz = num("sm_clock_mhz");
        g.memClockMhz = num("mem_clock_mhz");
        g.temperatureC = num("temperature_c");
        g.powerW = num("power_w");
        g.utilization = num("utilization");
        QStringList reasons;
        for (const auto& r : reading.value(QStringLiteral("throttle_reasons")).toArray())
            reasons << r.toString();
        g.throttleReasons = reasons.join(QLatin1Char(',')).toStdString();
        rec.gpuSamples.push_back(std::move(g));
    }

    // The verdict the attempt gets: the harness's, but a "correct" without a full, passing
    // correctness record and candidate timing is not accepted as correct.
    QString attemptVerdict = verdict;
    QString message = root.value(QStringLiteral("message")).toString();
    const auto timing = root.value(QStringLiteral("timing")).toObject();
    std::optional<db::TimingSeriesRow> candidate, eager, compiled;
    QString compileNote;
    if (verdict == QLatin1String("correct")) {
        QString err;
        if (!allPassed || static_cast<int>(rec.trials.size()) < settings.correctnessTrials) {
            out.error = QStringLiteral("the harness reported 'correct' with %1 passing correctness "
                                       "trials of %2 required")
                            .arg(allPassed ? static_cast<int>(rec.trials.size()) : 0)
                            .arg(settings.correctnessTrials);
            return out;
        }
        candidate = readSeries(timing.value(QStringLiteral("candidate")).toObject(),
                               QStringLiteral("candidate"), err);
        if (candidate)
            eager = readSeries(timing.value(QStringLiteral("eager")).toObject(),
                               QStringLiteral("eager"), err);
        if (!candidate || !eager) {
            out.error =
                QStringLiteral("the harness reported 'correct' without usable timing: %1").arg(err);
            return out;
        }
        const auto compileObj = timing.value(QStringLiteral("compile")).toObject();
        if (compileObj.contains(QStringLiteral("samples_ms"))) {
            compiled = readSeries(compileObj, QStringLiteral("compile"), err);
            if (!compiled) {
                out.error = err;
                return out;
            }
        } else {
            compileNote = compileObj.value(QStringLiteral("unavailable"))
                              .toString(settings.compileBaseline ? QStringLiteral("not measured")
                                                                 : QStringLiteral("not requested"));
        }
    }
    for (const auto* s : {&candidate, &eager, &compiled}) {
        if (*s)
            rec.timing.push_back(**s);
    }

    if (candidate && eager) {
        rec.speedupEager = eager->medianMs / candidate->medianMs;
        if (compiled)
            rec.speedupCompile = compiled->medianMs / candidate->medianMs;
        const auto comparison = readComparison(timing.value(QStringLiteral("comparison")));
        if (comparison.eager) {
            rec.speedupEager = comparison.eager->speedup;
            rec.uncertainty.eagerLow = comparison.eager->low;
            rec.uncertainty.eagerHigh = comparison.eager->high;
            rec.uncertainty.noisyEager = comparison.eager->noisy;
        }
        if (compiled && comparison.compile) {
            rec.speedupCompile = comparison.compile->speedup;
            rec.uncertainty.compileLow = comparison.compile->low;
            rec.uncertainty.compileHigh = comparison.compile->high;
            rec.uncertainty.noisyCompile = comparison.compile->noisy;
        }
        rec.uncertainty.regime = comparison.regime.toStdString();
        if (rec.uncertainty.noisy())
            rec.findings.push_back(noisyFinding(rec.uncertainty, comparison.targetHalfwidth));
        db::BaselineRow b;
        b.taskHash = taskHash.toStdString();
        b.device = (out.deviceName.isEmpty() ? out.device : out.deviceName).toStdString();
        b.torchVersion = out.torchVersion.toStdString();
        b.settingsKey = settings.baselineKey().toStdString();
        b.eagerMedianMs = eager->medianMs;
        if (compiled)
            b.compileMedianMs = compiled->medianMs;
        b.compileNote = compileNote.toStdString();
        rec.baseline = b;
        if (*rec.speedupEager > settings.excessiveSpeedup) {
            rec.suspicious = true;
            rec.findings.push_back(
                {"excessive-speedup", "suspicious", "",
                 QStringLiteral("%1x faster than eager exceeds the plausibility threshold of %2x; "
                                "excluded from scores until a person accepts it")
                     .arg(*rec.speedupEager, 0, 'f', 2)
                     .arg(settings.excessiveSpeedup)
                     .toStdString()});
        }
    }
    for (const auto& f : rec.findings) {
        if (f.severity == "suspicious")
            rec.suspicious = true;
    }
    rec.attemptVerdict = attemptVerdict.toStdString();
    rec.attemptMessage = message.toStdString();
    rec.attemptStatus = db::toString(db::AttemptStatus::Done);
    out.ok = true;
    return out;
}

} // namespace kb::engine
