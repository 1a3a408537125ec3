#pragma once
// A fixed database for the export tests: one run of two models on four tasks over two levels
// (plus a second sample of one task), with correct, incorrect, build-error, rejected,
// suspicious (unaccepted and accepted) and unevaluated attempts, fixed timing samples, one
// environment, a few published KernelBench baseline times, and timestamps pinned so exports are
// byte-for-byte reproducible.

#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::test {

inline db::TimingSeriesRow series(const std::string& kind, std::vector<double> samples) {
    db::TimingSeriesRow s;
    s.kind = kind;
    s.samplesMs = samples;
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    s.medianMs = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    s.meanMs = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
    double ss = 0;
    for (double v : samples)
        ss += (v - s.meanMs) * (v - s.meanMs);
    s.stdMs = std::sqrt(ss / static_cast<double>(n));
    s.minMs = samples.front();
    s.maxMs = samples.back();
    s.wallMs = std::accumulate(samples.begin(), samples.end(), 0.0) + 0.5;
    return s;
}

struct ReportFixture {
    db::Database database;
    db::Id run = 0;
    std::map<std::pair<std::string, std::string>, db::Id> attempt; // (model, task key) -> id
    db::Id secondSample = 0;                                       // model-a, L1_1, sample 1

    explicit ReportFixture(const std::string& path = ":memory:")
        : database(path) {
        auto& conn = database.connection();
        db::CatalogRepository catalog(conn);
        const db::Id provider =
            catalog.upsertProvider({0, "demo", "demo", "http://localhost:8000/v1", "{}"});
        std::vector<db::Id> models;
        for (const char* name : {"model-a", "model-b"}) {
            db::ModelRow m;
            m.providerId = provider;
            m.name = name;
            models.push_back(catalog.upsertModel(m));
        }
        const db::Id suite = catalog.upsertSuite({0, "fixture", "export fixture", ""});
        std::vector<db::TaskRow> rows;
        const std::vector<std::pair<std::string, std::string>> tasks = {{"L1_1", "Square_matmul"},
                                                                        {"L1_2", "ReLU"},
                                                                        {"L2_1", "Conv_ReLU"},
                                                                        {"L2_2", "Gemm_Scale"}};
        for (const auto& [key, name] : tasks) {
            db::TaskRow t;
            t.key = key;
            t.name = name;
            t.level = key[1] - '0';
            t.source = "class Model: pass  # " + name;
            t.sourceHash = "hash-" + key;
            rows.push_back(t);
        }
        const auto taskIds = catalog.upsertTasks(suite, rows);

        db::RunRow r;
        r.name = "fixture run";
        r.suiteId = suite;
        r.settingsJson = R"({"compile_baseline":true,"correctness_trials":5,"device":"cuda",)"
                         R"("precision":"fp32","seed":"987654321","timing_trials":3})";
        db::RunRepository runs(conn);
        run = runs.createRun(r, models, taskIds, 1);
        {
            db::Statement extra(conn,
                                "INSERT INTO attempts(run_id, model_id, task_id, sample_index) "
                                "VALUES (?,?,?,1)");
            extra.bind(1, run).bind(2, models[0]).bind(3, taskIds[0]).exec();
            secondSample = conn.lastInsertId();
        }
        for (const auto& a : runs.attempts(run)) {
            if (a.sampleIndex == 0)
                attempt[{a.modelName, a.taskKey}] = a.id;
        }

        db::EvaluationRepository evals(conn);
        // model-a
        // Measured with intervals (schema 7): tight for model-a, noisy for model-b on L1_1.
        auto tight =
            correct(at("model-a", "L1_1"), {1.0, 1.1, 0.9}, {2.0, 2.1, 1.9}, {1.5, 1.6, 1.4});
        tight.uncertainty = {1.9, 2.1, 1.4, 1.6, false, false, "device-bound"};
        evals.store(tight);
        evals.store(correct(secondSample, {0.8, 0.8, 0.9}, {2.0, 2.0, 2.1}, {1.5, 1.5, 1.6}));
        evals.store(incorrect(at("model-a", "L1_2")));
        auto suspicious = correct(at("model-a", "L2_1"), {0.1, 0.1, 0.1}, {2.0, 2.0, 2.0}, {});
        suspicious.suspicious = true;
        suspicious.findings = {{"excessive-speedup", "suspicious", "",
                                "20.00x faster than eager exceeds the plausibility threshold"}};
        evals.store(suspicious);
        evals.store(buildError(at("model-a", "L2_2")));
        // model-b
        auto noisy =
            correct(at("model-b", "L1_1"), {2.5, 2.5, 2.6}, {2.0, 2.0, 2.1}, {1.5, 1.6, 1.5});
        noisy.uncertainty = {0.6, 1.05, 0.5, 0.7, true, false, "launch-bound"};
        noisy.findings = {{"noisy-timing", "info", "",
                           "the speedup vs eager did not reach the precision target of ±3% within "
                           "the time cap"}};
        evals.store(noisy);
        auto accepted =
            correct(at("model-b", "L1_2"), {0.4, 0.4, 0.5}, {0.5, 0.5, 0.5}, {0.45, 0.5, 0.5});
        accepted.suspicious = true;
        accepted.findings = {
            {"timing-variance", "suspicious", "", "timing varies, checked by hand"}};
        evals.store(accepted);
        runs.setReview(at("model-b", "L1_2"), "accepted", "checked the kernel");
        evals.store(rejected(at("model-b", "L2_1")));
        runs.finishAttempt(at("model-b", "L2_2"), "failed", "no_candidate",
                           "the response held no code block");

        db::TurnRow turn;
        turn.attemptId = at("model-a", "L1_1");
        turn.inputTokens = 1200;
        turn.outputTokens = 800;
        turn.stopReason = "end_turn";
        turn.latencyMs = 850;
        turn.cacheReadTokens = 300;
        turn.cacheWriteTokens = 50;
        turn.costUsd = 0.0123;
        turn.ttftMs = 250; // streamed
        turn.modelSnapshot = "model-a-2026-01-01";
        runs.addTurn(turn);
        runs.updateAttemptCost(turn.attemptId);
        turn.latencyMs = 0;
        turn.cacheReadTokens = 0;
        turn.cacheWriteTokens = 0;
        turn.costUsd.reset();
        turn.ttftMs.reset(); // answered in one piece, but the provider named its model
        turn.modelSnapshot = "model-b-v1";
        turn.attemptId = at("model-b", "L2_2");
        turn.inputTokens = 900;
        turn.outputTokens = 15;
        runs.addTurn(turn);

        // KernelBench's published eager times (as `baselines import` stores them): L1_1 on an
        // H200 (matches the fixture's "NVIDIA H200") and an H100 (does not), L1_2 on an H100
        // only, L2_1 on the H200; a compile row that the published speedup never uses.
        conn.exec("INSERT INTO baselines(task_hash, device, torch_version, settings_key, "
                  "eager_median_ms, compile_median_ms) VALUES "
                  "('hash-L1_1', 'H200_Lab', 'unknown', 'kernelbench-published;eager', 3.0, NULL),"
                  "('hash-L1_1', 'H100_Modal', 'unknown', 'kernelbench-published;eager', 2.0, "
                  "NULL),"
                  "('hash-L1_1', 'H200_Lab', 'unknown', "
                  "'kernelbench-published;compile-inductor-default', NULL, 1.0),"
                  "('hash-L1_2', 'H100_Modal', 'unknown', 'kernelbench-published;eager', 1.0, "
                  "NULL),"
                  "('hash-L2_1', 'H200_Lab', 'unknown', 'kernelbench-published;eager', 0.5, NULL)");

        conn.exec("UPDATE attempts SET started_at = '2026-01-02T03:04:05.000Z', "
                  "finished_at = '2026-01-02T03:05:06.000Z' WHERE status IN ('done','failed')");
        conn.exec("UPDATE runs SET created_at = '2026-01-02T03:00:00.000Z', status = 'finished'");
    }

    db::Id at(const std::string& model, const std::string& task) const {
        return attempt.at({model, task});
    }

private:
    static db::EvaluationRecord base(db::Id attemptId, const std::string& verdict) {
        db::EvaluationRecord r;
        r.attemptId = attemptId;
        r.candidate = {0,
                       attemptId,
                       0,
                       "class ModelNew: pass",
                       "code-" + std::to_string(attemptId),
                       "kernelbench"};
        r.build = db::BuildRow{0, 0, "ok", 4.5, "cache-" + std::to_string(attemptId), "", "[]"};
        r.environment = db::EnvironmentRow{0,
                                           "env-fingerprint-0001",
                                           "cuda",
                                           "NVIDIA H200",
                                           "2.5.0+cu124",
                                           "3.11.2",
                                           "12.4",
                                           "550.54",
                                           "{}"};
        r.evaluation.verdict = verdict;
        r.evaluation.harnessSeconds = 7.25;
        r.attemptVerdict = verdict;
        return r;
    }

    static db::EvaluationRecord correct(db::Id attemptId, const std::vector<double>& candidate,
                                        const std::vector<double>& eager,
                                        const std::vector<double>& compile) {
        auto r = base(attemptId, "correct");
        r.evaluation.correctnessPassed = true;
        r.evaluation.maxAbsError = 1.5e-6;
        r.evaluation.maxRelError = 2e-5;
        for (int i = 0; i < 5; ++i)
            r.trials.push_back({i, true, 1.5e-6, 2e-5, 0.0, ""});
        r.timing.push_back(series("candidate", candidate));
        r.timing.push_back(series("eager", eager));
        r.speedupEager = r.timing[1].medianMs / r.timing[0].medianMs;
        if (!compile.empty()) {
            r.timing.push_back(series("compile", compile));
            r.speedupCompile = r.timing[2].medianMs / r.timing[0].medianMs;
        }
        return r;
    }

    static db::EvaluationRecord incorrect(db::Id attemptId) {
        auto r = base(attemptId, "incorrect");
        r.evaluation.maxAbsError = 0.25;
        r.evaluation.maxRelError = 0.5;
        for (int i = 0; i < 5; ++i)
            r.trials.push_back(
                {i, i < 3, i < 3 ? 1e-6 : 0.25, i < 3 ? 1e-5 : 0.5, i < 3 ? 0.0 : 0.1, ""});
        r.attemptMessage = "output mismatch in 2 of 5 trials (max abs error 0.25)";
        return r;
    }

    static db::EvaluationRecord buildError(db::Id attemptId) {
        auto r = base(attemptId, "build_error");
        r.build->status = "failed";
        r.build->log = "error: expected ';'";
        r.attemptMessage = "kernel.cu:12: error: expected ';'";
        return r;
    }

    static db::EvaluationRecord rejected(db::Id attemptId) {
        auto r = base(attemptId, "rejected");
        r.build.reset();
        r.findings = {{"torch-op-in-forward", "reject", "model_new.py:8",
                       "forward calls torch.nn.functional.conv2d"}};
        r.attemptMessage = "static check: forward calls torch.nn.functional.conv2d";
        return r;
    }
};

} // namespace kb::test
