#include "evalsettings.h"

#ifndef KBSTUDIO_VERSION
#define KBSTUDIO_VERSION "unknown"
#endif

namespace kb::engine {

QStringList knownPrecisions() {
    return {QStringLiteral("fp32"), QStringLiteral("fp16"), QStringLiteral("bf16")};
}

double defaultTolerance(const QString& precision) {
    if (precision == QLatin1String("fp16") || precision == QLatin1String("bf16"))
        return 1e-2;
    return 1e-4;
}

QString currentProgramVersion() {
    return QStringLiteral(KBSTUDIO_VERSION);
}

void EvalSettings::setPrecision(const QString& p) {
    precision = p;
    if (!toleranceExplicit)
        atol = rtol = defaultTolerance(p);
}

void EvalSettings::setTolerance(double absolute, double relative) {
    atol = absolute;
    rtol = relative;
    toleranceExplicit = true;
}

QJsonObject EvalSettings::toJson() const {
    return QJsonObject{
        {QStringLiteral("device"), device},
        {QStringLiteral("correctness_trials"), correctnessTrials},
        {QStringLiteral("timing_trials"), timingTrials},
        {QStringLiteral("warmup"), warmup},
        {QStringLiteral("max_timing_seconds"), maxTimingSeconds},
        {QStringLiteral("precision"), precision},
        {QStringLiteral("atol"), atol},
        {QStringLiteral("rtol"), rtol},
        {QStringLiteral("tolerance_explicit"), toleranceExplicit},
        {QStringLiteral("allow_tf32"), allowTf32},
        {QStringLiteral("compile_baseline"), compileBaseline},
        {QStringLiteral("compile_mode"), compileMode},
        {QStringLiteral("allow_torch_ops"), allowTorchOps},
        {QStringLiteral("vendor_libraries"), vendorLibraries},
        {QStringLiteral("timeout_s"), timeoutSeconds},
        {QStringLiteral("build_timeout_s"), buildTimeoutSeconds},
        {QStringLiteral("excessive_speedup"), excessiveSpeedup},
        {QStringLiteral("build_jobs"), buildJobs},
        {QStringLiteral("generation_jobs"), generationJobs},
        // As a string: JSON numbers lose 64-bit integers.
        {QStringLiteral("seed"), QString::number(seed)},
        {QStringLiteral("backend"), backend},
        {QStringLiteral("slurm_partition"), slurmPartition},
        {QStringLiteral("slurm_max_jobs"), slurmMaxJobs},
        {QStringLiteral("slurm_args"), slurmArgs},
        {QStringLiteral("retry_limit"), retryLimit},
        {QStringLiteral("retry_base_s"), retryBaseSeconds},
        {QStringLiteral("cpu_timing_exclusive"), cpuTimingExclusive},
        {QStringLiteral("program_version"), programVersion},
    };
}

EvalSettings EvalSettings::fromJson(const QJsonObject& o) {
    EvalSettings s;
    s.device = o.value(QStringLiteral("device")).toString(s.device);
    s.correctnessTrials = o.value(QStringLiteral("correctness_trials")).toInt(s.correctnessTrials);
    s.timingTrials = o.value(QStringLiteral("timing_trials")).toInt(s.timingTrials);
    s.warmup = o.value(QStringLiteral("warmup")).toInt(s.warmup);
    s.maxTimingSeconds = o.value(QStringLiteral("max_timing_seconds")).toDouble(s.maxTimingSeconds);
    s.precision = o.value(QStringLiteral("precision")).toString(s.precision);
    s.atol = o.value(QStringLiteral("atol")).toDouble(s.atol);
    s.rtol = o.value(QStringLiteral("rtol")).toDouble(s.rtol);
    // Unless set explicitly, the tolerances are the precision's: a run stored with fp16 but
    // fp32's tolerance (before the field existed) is judged as fp16 should be. Such a run's
    // tolerance counts as explicit only where it is neither fp32's nor its precision's.
    if (o.contains(QStringLiteral("tolerance_explicit"))) {
        s.toleranceExplicit = o.value(QStringLiteral("tolerance_explicit")).toBool();
    } else {
        const auto isDefault = [&s](double t) {
            return qFuzzyCompare(t, defaultTolerance(QStringLiteral("fp32"))) ||
                   qFuzzyCompare(t, defaultTolerance(s.precision));
        };
        s.toleranceExplicit = !isDefault(s.atol) || !isDefault(s.rtol);
    }
    if (!s.toleranceExplicit)
        s.atol = s.rtol = defaultTolerance(s.precision);
    s.allowTf32 = o.value(QStringLiteral("allow_tf32")).toBool(s.allowTf32);
    s.compileBaseline = o.value(QStringLiteral("compile_baseline")).toBool(s.compileBaseline);
    s.compileMode = o.value(QStringLiteral("compile_mode")).toString(s.compileMode);
    s.allowTorchOps = o.value(QStringLiteral("allow_torch_ops")).toBool(s.allowTorchOps);
    s.vendorLibraries = o.value(QStringLiteral("vendor_libraries")).toString(s.vendorLibraries);
    s.timeoutSeconds = o.value(QStringLiteral("timeout_s")).toDouble(s.timeoutSeconds);
    s.buildTimeoutSeconds =
        o.value(QStringLiteral("build_timeout_s")).toDouble(s.buildTimeoutSeconds);
    s.excessiveSpeedup = o.value(QStringLiteral("excessive_speedup")).toDouble(s.excessiveSpeedup);
    s.buildJobs = o.value(QStringLiteral("build_jobs")).toInt(s.buildJobs);
    s.generationJobs = o.value(QStringLiteral("generation_jobs")).toInt(s.generationJobs);
    s.seed = o.value(QStringLiteral("seed")).toString().toULongLong();
    s.backend = o.value(QStringLiteral("backend")).toString(s.backend);
    s.slurmPartition = o.value(QStringLiteral("slurm_partition")).toString(s.slurmPartition);
    s.slurmMaxJobs = o.value(QStringLiteral("slurm_max_jobs")).toInt(s.slurmMaxJobs);
    s.slurmArgs = o.value(QStringLiteral("slurm_args")).toString(s.slurmArgs);
    s.retryLimit = o.value(QStringLiteral("retry_limit")).toInt(s.retryLimit);
    s.retryBaseSeconds = o.value(QStringLiteral("retry_base_s")).toDouble(s.retryBaseSeconds);
    s.cpuTimingExclusive =
        o.value(QStringLiteral("cpu_timing_exclusive")).toBool(s.cpuTimingExclusive);
    s.programVersion =
        o.value(QStringLiteral("program_version")).toString(QStringLiteral("unknown"));
    return s;
}

QString EvalSettings::baselineKey() const {
    return QStringLiteral("%1;%2;tf32=%3;warmup=%4;trials=%5")
        .arg(device, precision)
        .arg(allowTf32 ? 1 : 0)
        .arg(warmup)
        .arg(timingTrials);
}

} // namespace kb::engine
