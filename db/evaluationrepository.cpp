#include "evaluationrepository.h"

#include "runrepository.h"

#include <algorithm>

namespace kb::db {

Id EvaluationRepository::storeSeries(Id evaluationId, const TimingSeriesRow& s) {
    Statement q(m_conn, "INSERT INTO timing_series(evaluation_id, kind, samples, median_ms, "
                        "mean_ms, std_ms, min_ms, max_ms, wall_ms) VALUES (?,?,?,?,?,?,?,?,?)");
    q.bind(1, evaluationId).bind(2, s.kind).bind(3, static_cast<int>(s.samplesMs.size()));
    q.bind(4, s.medianMs).bind(5, s.meanMs).bind(6, s.stdMs).bind(7, s.minMs).bind(8, s.maxMs);
    q.bind(9, s.wallMs).exec();
    const Id seriesId = m_conn.lastInsertId();
    Statement smp(m_conn, "INSERT INTO timing_samples(series_id, sample_index, ms) VALUES (?,?,?)");
    for (size_t i = 0; i < s.samplesMs.size(); ++i)
        smp.bind(1, seriesId).bind(2, static_cast<int>(i)).bind(3, s.samplesMs[i]).exec();
    return seriesId;
}

Id EvaluationRepository::store(const EvaluationRecord& r) {
    Transaction tx(m_conn);

    Statement cand(m_conn,
                   "INSERT INTO candidates(attempt_id, turn_index, code, code_hash, format) "
                   "VALUES (?,?,?,?,?)");
    cand.bind(1, r.attemptId).bind(2, r.candidate.turnIndex).bind(3, r.candidate.code);
    cand.bind(4, r.candidate.codeHash).bind(5, r.candidate.format).exec();
    const Id candidateId = m_conn.lastInsertId();

    if (r.build) {
        Statement b(m_conn, "INSERT INTO builds(candidate_id, status, seconds, cache_key, log, "
                            "errors_json) VALUES (?,?,?,?,?,?)");
        b.bind(1, candidateId).bind(2, r.build->status).bind(3, r.build->seconds);
        b.bind(4, r.build->cacheKey).bind(5, r.build->log).bind(6, r.build->errorsJson).exec();
    }

    std::optional<Id> envId;
    if (r.environment) {
        const auto& e = *r.environment;
        Statement q(m_conn,
                    "INSERT INTO environments(fingerprint, device, device_name, torch, "
                    "python, cuda, driver, details_json) VALUES (?,?,?,?,?,?,?,?) "
                    "ON CONFLICT(fingerprint) DO UPDATE SET fingerprint=excluded.fingerprint "
                    "RETURNING id");
        q.bind(1, e.fingerprint).bind(2, e.device).bind(3, e.deviceName).bind(4, e.torch);
        q.bind(5, e.python).bind(6, e.cuda).bind(7, e.driver).bind(8, e.detailsJson);
        q.step();
        envId = q.int64(0);
    }

    const auto& ev = r.evaluation;
    Statement e(m_conn,
                "INSERT INTO evaluations(attempt_id, candidate_id, environment_id, verdict, "
                "message, correctness_passed, trials, max_abs_error, mean_abs_error, "
                "max_rel_error, harness_seconds, settings_json, result_json) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    e.bind(1, r.attemptId).bind(2, candidateId).bind(3, envId).bind(4, ev.verdict);
    e.bind(5, ev.message).bind(6, ev.correctnessPassed).bind(7, static_cast<int>(r.trials.size()));
    e.bind(8, ev.maxAbsError).bind(9, ev.meanAbsError).bind(10, ev.maxRelError);
    e.bind(11, ev.harnessSeconds).bind(12, ev.settingsJson).bind(13, ev.resultJson).exec();
    const Id evalId = m_conn.lastInsertId();

    Statement t(m_conn, "INSERT INTO correctness_trials(evaluation_id, trial_index, passed, "
                        "max_abs_error, max_rel_error, mismatch_fraction, message) "
                        "VALUES (?,?,?,?,?,?,?)");
    for (const auto& trial : r.trials) {
        t.bind(1, evalId).bind(2, trial.index).bind(3, trial.passed).bind(4, trial.maxAbsError);
        t.bind(5, trial.maxRelError).bind(6, trial.mismatchFraction).bind(7, trial.message).exec();
    }

    std::optional<Id> eagerSeries;
    std::optional<Id> compileSeries;
    for (const auto& s : r.timing) {
        const Id id = storeSeries(evalId, s);
        if (s.kind == "eager")
            eagerSeries = id;
        else if (s.kind == "compile")
            compileSeries = id;
    }

    if (r.baseline) {
        const auto& b = *r.baseline;
        // The newest measurement under the same key replaces the cached one; the series it
        // points at stay with their evaluation, so older numbers remain traceable.
        Statement q(m_conn,
                    "INSERT INTO baselines(task_hash, device, torch_version, settings_key, "
                    "environment_id, eager_series_id, compile_series_id, eager_median_ms, "
                    "compile_median_ms, compile_note) VALUES (?,?,?,?,?,?,?,?,?,?) "
                    "ON CONFLICT(task_hash, device, torch_version, settings_key) DO UPDATE SET "
                    "environment_id=excluded.environment_id, "
                    "eager_series_id=excluded.eager_series_id, "
                    "compile_series_id=excluded.compile_series_id, "
                    "eager_median_ms=excluded.eager_median_ms, "
                    "compile_median_ms=excluded.compile_median_ms, "
                    "compile_note=excluded.compile_note, "
                    "measured_at=strftime('%Y-%m-%dT%H:%M:%fZ','now') RETURNING id");
        q.bind(1, b.taskHash).bind(2, b.device).bind(3, b.torchVersion).bind(4, b.settingsKey);
        q.bind(5, envId).bind(6, eagerSeries).bind(7, compileSeries).bind(8, b.eagerMedianMs);
        q.bind(9, b.compileMedianMs).bind(10, b.compileNote);
        q.step();
        const Id baselineId = q.int64(0);
        q.reset();
        Statement link(m_conn, "UPDATE evaluations SET baseline_id = ? WHERE id = ?");
        link.bind(1, baselineId).bind(2, evalId).exec();
    }

    Statement f(m_conn, "INSERT INTO findings(attempt_id, evaluation_id, rule, severity, location, "
                        "message) VALUES (?,?,?,?,?,?)");
    for (const auto& finding : r.findings) {
        f.bind(1, r.attemptId).bind(2, evalId).bind(3, finding.rule).bind(4, finding.severity);
        f.bind(5, finding.location).bind(6, finding.message).exec();
    }

    Statement g(
        m_conn,
        "INSERT INTO gpu_samples(evaluation_id, phase, gpu_index, sm_clock_mhz, mem_clock_mhz, "
        "temperature_c, power_w, utilization, throttle_reasons) VALUES (?,?,?,?,?,?,?,?,?)");
    for (const auto& s : r.gpuSamples) {
        g.bind(1, evalId)
            .bind(2, s.phase)
            .bind(3, s.gpuIndex)
            .bind(4, s.smClockMhz)
            .bind(5, s.memClockMhz);
        g.bind(6, s.temperatureC)
            .bind(7, s.powerW)
            .bind(8, s.utilization)
            .bind(9, s.throttleReasons)
            .exec();
    }

    Statement a(m_conn, "UPDATE attempts SET status = ?, verdict = ?, message = ?, suspicious = ?, "
                        "speedup_eager = ?, speedup_compile = ?, "
                        "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?");
    a.bind(1, r.attemptStatus).bind(2, r.attemptVerdict).bind(3, r.attemptMessage);
    a.bind(4, r.suspicious).bind(5, r.speedupEager).bind(6, r.speedupCompile).bind(7, r.attemptId);
    a.exec();
    if (m_conn.changes() != 1)
        throw Error("no attempt with id " + std::to_string(r.attemptId));
    // Schema 7: how sure the speedups are; a re-evaluation replaces (or clears) the older values.
    const auto& c = r.uncertainty;
    if (c.eagerLow || c.eagerHigh || c.compileLow || c.compileHigh || c.noisy() ||
        !c.regime.empty()) {
        Statement u(
            m_conn,
            "INSERT INTO attempt_timing(attempt_id, speedup_eager_low, speedup_eager_high, "
            "speedup_compile_low, speedup_compile_high, noisy_eager, noisy_compile, regime) "
            "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(attempt_id) DO UPDATE SET "
            "speedup_eager_low = excluded.speedup_eager_low, "
            "speedup_eager_high = excluded.speedup_eager_high, "
            "speedup_compile_low = excluded.speedup_compile_low, "
            "speedup_compile_high = excluded.speedup_compile_high, "
            "noisy_eager = excluded.noisy_eager, noisy_compile = excluded.noisy_compile, "
            "regime = excluded.regime");
        u.bind(1, r.attemptId).bind(2, c.eagerLow).bind(3, c.eagerHigh).bind(4, c.compileLow);
        u.bind(5, c.compileHigh)
            .bind(6, c.noisyEager)
            .bind(7, c.noisyCompile)
            .bind(8, c.regime)
            .exec();
    } else {
        Statement u(m_conn, "DELETE FROM attempt_timing WHERE attempt_id = ?");
        u.bind(1, r.attemptId).exec();
    }

    tx.commit();
    return evalId;
}

std::vector<TimingSeriesRow> EvaluationRepository::timing(Id evaluationId) {
    Statement q(m_conn, "SELECT id, kind, median_ms, mean_ms, std_ms, min_ms, max_ms, wall_ms "
                        "FROM timing_series WHERE evaluation_id = ? ORDER BY id");
    Statement smp(m_conn,
                  "SELECT ms FROM timing_samples WHERE series_id = ? ORDER BY sample_index");
    q.bind(1, evaluationId);
    std::vector<TimingSeriesRow> out;
    while (q.step()) {
        TimingSeriesRow s;
        s.id = q.int64(0);
        s.kind = q.text(1);
        s.medianMs = q.real(2);
        s.meanMs = q.real(3);
        s.stdMs = q.real(4);
        s.minMs = q.real(5);
        s.maxMs = q.real(6);
        s.wallMs = q.optReal(7);
        smp.bind(1, s.id);
        while (smp.step())
            s.samplesMs.push_back(smp.real(0));
        smp.reset();
        out.push_back(std::move(s));
    }
    return out;
}

AttemptDetail EvaluationRepository::detail(Id attemptId) {
    AttemptDetail d;
    RunRepository runs(m_conn);
    auto attempt = runs.attempt(attemptId);
    if (!attempt)
        throw Error("no attempt with id " + std::to_string(attemptId));
    d.attempt = *attempt;
    d.turns = runs.turns(attemptId);

    Statement c(m_conn,
                "SELECT id, attempt_id, turn_index, code, code_hash, format FROM candidates "
                "WHERE attempt_id = ? ORDER BY id DESC LIMIT 1");
    c.bind(1, attemptId);
    if (c.step())
        d.candidate =
            CandidateRow{c.int64(0), c.int64(1), c.int32(2), c.text(3), c.text(4), c.text(5)};
    if (!d.candidate)
        return d;

    Statement b(m_conn, "SELECT id, candidate_id, status, seconds, cache_key, log, errors_json "
                        "FROM builds WHERE candidate_id = ? ORDER BY id DESC LIMIT 1");
    b.bind(1, d.candidate->id);
    if (b.step())
        d.build =
            BuildRow{b.int64(0), b.int64(1), b.text(2), b.real(3), b.text(4), b.text(5), b.text(6)};

    Statement e(m_conn,
                "SELECT id, attempt_id, candidate_id, verdict, message, correctness_passed, "
                "trials, max_abs_error, mean_abs_error, max_rel_error, harness_seconds, "
                "settings_json, result_json, created_at, environment_id FROM evaluations "
                "WHERE candidate_id = ? ORDER BY id DESC LIMIT 1");
    e.bind(1, d.candidate->id);
    if (e.step()) {
        EvaluationRow ev;
        ev.id = e.int64(0);
        ev.attemptId = e.int64(1);
        ev.candidateId = e.int64(2);
        ev.verdict = e.text(3);
        ev.message = e.text(4);
        ev.correctnessPassed = e.int64(5) != 0;
        ev.trials = e.int32(6);
        ev.maxAbsError = e.optReal(7);
        ev.meanAbsError = e.optReal(8);
        ev.maxRelError = e.optReal(9);
        ev.harnessSeconds = e.real(10);
        ev.settingsJson = e.text(11);
        ev.resultJson = e.text(12);
        ev.createdAt = e.text(13);
        const auto envId = e.optInt64(14);
        d.evaluation = ev;

        Statement t(m_conn, "SELECT trial_index, passed, max_abs_error, max_rel_error, "
                            "mismatch_fraction, message FROM correctness_trials "
                            "WHERE evaluation_id = ? ORDER BY trial_index");
        t.bind(1, ev.id);
        while (t.step())
            d.trials.push_back(
                {t.int32(0), t.int64(1) != 0, t.optReal(2), t.optReal(3), t.optReal(4), t.text(5)});
        d.timing = timing(ev.id);

        if (envId) {
            Statement en(m_conn,
                         "SELECT id, fingerprint, device, device_name, torch, python, cuda, "
                         "driver, details_json FROM environments WHERE id = ?");
            en.bind(1, *envId);
            if (en.step()) {
                d.environment =
                    EnvironmentRow{en.int64(0), en.text(1), en.text(2), en.text(3), en.text(4),
                                   en.text(5),  en.text(6), en.text(7), en.text(8)};
            }
        }
    }

    Statement f(m_conn,
                "SELECT rule, severity, location, message FROM findings WHERE attempt_id = ? "
                "ORDER BY id");
    f.bind(1, attemptId);
    while (f.step())
        d.findings.push_back({f.text(0), f.text(1), f.text(2), f.text(3)});
    return d;
}

namespace {
constexpr const char* kBaselineSelect =
    "SELECT id, task_hash, device, torch_version, settings_key, eager_median_ms, "
    "compile_median_ms, compile_note, measured_at FROM baselines ";

BaselineRow readBaseline(const Statement& q) {
    return {q.int64(0),   q.text(1),    q.text(2), q.text(3), q.text(4),
            q.optReal(5), q.optReal(6), q.text(7), q.text(8)};
}
} // namespace

std::optional<BaselineRow> EvaluationRepository::baseline(const std::string& taskHash,
                                                          const std::string& device,
                                                          const std::string& torchVersion,
                                                          const std::string& settingsKey) {
    Statement q(m_conn, std::string(kBaselineSelect) +
                            "WHERE task_hash = ? AND device = ? AND torch_version = ? AND "
                            "settings_key = ?");
    q.bind(1, taskHash).bind(2, device).bind(3, torchVersion).bind(4, settingsKey);
    if (!q.step())
        return std::nullopt;
    return readBaseline(q);
}

std::vector<BaselineRow> EvaluationRepository::baselinesForTask(const std::string& taskHash) {
    Statement q(m_conn, std::string(kBaselineSelect) + "WHERE task_hash = ? ORDER BY device");
    q.bind(1, taskHash);
    std::vector<BaselineRow> out;
    while (q.step())
        out.push_back(readBaseline(q));
    return out;
}

std::vector<BaselineRow> EvaluationRepository::baselines() {
    Statement q(m_conn, std::string(kBaselineSelect) + "ORDER BY task_hash, device, measured_at");
    std::vector<BaselineRow> out;
    while (q.step())
        out.push_back(readBaseline(q));
    return out;
}

std::optional<BuildRow> EvaluationRepository::latestBuild(Id attemptId) {
    Statement q(m_conn, "SELECT b.id, b.candidate_id, b.status, b.seconds, b.cache_key, b.log, "
                        "b.errors_json FROM builds b JOIN candidates c ON c.id = b.candidate_id "
                        "WHERE c.attempt_id = ? ORDER BY b.id DESC LIMIT 1");
    q.bind(1, attemptId);
    if (!q.step())
        return std::nullopt;
    return BuildRow{q.int64(0), q.int64(1), q.text(2), q.real(3), q.text(4), q.text(5), q.text(6)};
}

std::vector<GpuSampleRow> EvaluationRepository::gpuSamples(Id id, GpuSampleScope scope) {
    // A run's readings are scanned newest first, at most 64 of them: enough for the GPUs of
    // one host, without reading a long run's whole history.
    const std::string where =
        scope == GpuSampleScope::LatestEvaluation
            ? "WHERE g.evaluation_id = (SELECT max(id) FROM evaluations WHERE attempt_id = ?) "
              "ORDER BY g.gpu_index, g.id"
            : "JOIN evaluations e ON e.id = g.evaluation_id JOIN attempts a ON a.id = "
              "e.attempt_id WHERE a.run_id = ? ORDER BY g.id DESC LIMIT 64";
    Statement q(m_conn, "SELECT g.gpu_index, g.phase, g.sm_clock_mhz, g.mem_clock_mhz, "
                        "g.temperature_c, g.power_w, g.utilization, g.throttle_reasons "
                        "FROM gpu_samples g " +
                            where);
    q.bind(1, id);
    std::vector<GpuSampleRow> out;
    while (q.step()) {
        const int gpu = q.int32(0);
        if (scope == GpuSampleScope::NewestPerGpu &&
            std::any_of(out.begin(), out.end(),
                        [gpu](const GpuSampleRow& g) { return g.gpuIndex == gpu; }))
            continue;
        GpuSampleRow g;
        g.gpuIndex = gpu;
        g.phase = q.text(1);
        g.smClockMhz = q.optReal(2);
        g.memClockMhz = q.optReal(3);
        g.temperatureC = q.optReal(4);
        g.powerW = q.optReal(5);
        g.utilization = q.optReal(6);
        g.throttleReasons = q.text(7);
        out.push_back(std::move(g));
    }
    if (scope == GpuSampleScope::NewestPerGpu) {
        std::sort(out.begin(), out.end(), [](const GpuSampleRow& a, const GpuSampleRow& b) {
            return a.gpuIndex < b.gpuIndex;
        });
    }
    return out;
}

} // namespace kb::db
