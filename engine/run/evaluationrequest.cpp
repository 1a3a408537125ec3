#include "evaluationrequest.h"

#include <QJsonDocument>
#include <algorithm>

namespace kb::engine {

QJsonObject evaluationRequestObject(const EvalSettings& s, const EvaluationRequest& r) {
    const bool full = r.effort == TimingEffort::Full;
    const QJsonObject baseline{{QStringLiteral("eager"), true},
                               {QStringLiteral("compile"), full && s.compileBaseline},
                               {QStringLiteral("compile_mode"), s.compileMode}};
    const QJsonObject policy{{QStringLiteral("allow_torch_ops"), s.allowTorchOps},
                             {QStringLiteral("allow_vendor_libraries"), s.vendorLibraries}};
    QJsonObject req{
        {QStringLiteral("schema"), QLatin1String(kEvalRequestSchema)},
        {QStringLiteral("task_path"), r.taskPath},
        {QStringLiteral("candidate_path"), r.candidatePath},
        {QStringLiteral("device"), s.device},
        {QStringLiteral("gpu_index"), std::max(0, r.gpuIndex)},
        {QStringLiteral("correctness_trials"), s.correctnessTrials},
        {QStringLiteral("timing_trials"),
         full ? s.timingTrials : std::min(5, std::max(1, s.timingTrials))},
        {QStringLiteral("warmup"), full ? s.warmup : std::min(1, s.warmup)},
        {QStringLiteral("max_timing_seconds"), s.maxTimingSeconds},
        {QStringLiteral("seed"), static_cast<double>(r.seed)},
        {QStringLiteral("precision"), s.precision},
        {QStringLiteral("atol"), s.atol},
        {QStringLiteral("rtol"), s.rtol},
        {QStringLiteral("allow_tf32"), s.allowTf32},
        {QStringLiteral("baseline"), baseline},
        {QStringLiteral("policy"), policy},
        {QStringLiteral("build_timeout_seconds"), s.buildTimeoutSeconds},
    };
    if (!r.buildDir.isEmpty())
        req.insert(QStringLiteral("build_dir"), r.buildDir);
    if (!r.buildRoot.isEmpty())
        req.insert(QStringLiteral("build_root"), r.buildRoot);
    return req;
}

QByteArray evaluationRequestJson(const EvalSettings& settings, const EvaluationRequest& request) {
    return QJsonDocument(evaluationRequestObject(settings, request)).toJson(QJsonDocument::Compact);
}

quint64 attemptSeed(quint64 runSeed, qint64 attemptId) {
    return (runSeed ^ (static_cast<quint64>(attemptId) * 0x9E3779B97F4A7C15ULL)) >> 12;
}

} // namespace kb::engine
