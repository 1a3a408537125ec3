#pragma once
// A small database with known, hand-checkable content for the GUI tests:
//
// Suite "sample": l1_matmul, l1_relu (level 1), l2_conv_bias (level 2), l3_mlp (level 3).
// Run 1 "baseline sweep" (finished), models demo-a and demo-b, one sample each:
//              demo-a                         demo-b
//   l1_relu    correct 2.00x (compile 1.50x)  correct 40.0x (compile 30.0x), suspicious
//   l1_matmul  correct 0.50x (compile 0.25x)  build_error
//   l2_conv    incorrect                      correct 1.10x (compile 0.90x)
//   l3_mlp     correct 1.25x (no compile)     rejected (torch-op-in-forward)
// Run 2 "refinement" (running, multi-turn), demo-a only:
//   l1_relu    correct 2.50x (compile 1.90x)
//   l1_matmul  queued
// A file database, because the GUI opens it by path from other threads.

#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"
#include "eval/evalsettings.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::test {

class GuiFixture {
public:
    GuiFixture()
        : m_path(m_dir.filePath(QStringLiteral("fixture.kbdb"))) {
        db::Database database(m_path.toStdString());
        fill(database.connection());
    }

    const QString& path() const { return m_path; }
    QString dir() const { return m_dir.path(); }
    db::Id run1() const { return m_run1; }
    db::Id run2() const { return m_run2; }
    db::Id attempt(db::Id run, const std::string& model, const std::string& task) const {
        return m_attempts.at({run, model + "/" + task});
    }

    // A migrated database with a catalog but no runs.
    static void writeEmpty(const QString& path) {
        db::Database database(path.toStdString());
        db::CatalogRepository(database.connection()).upsertSuite({0, "sample", "empty", ""});
    }

    // A database whose schema is newer than this program's.
    static void writeTooNew(const QString& path) {
        db::Database database(path.toStdString());
        database.connection().exec("INSERT INTO schema_version(version) VALUES (9999)");
        database.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }

private:
    struct Outcome {
        std::string verdict;
        std::optional<double> eager;
        std::optional<double> compile;
        bool suspicious = false;
        std::vector<db::FindingRow> findings;
        std::string message;
    };

    static std::vector<double> samples(double centre, int n) {
        std::vector<double> out;
        for (int i = 0; i < n; ++i)
            out.push_back(centre * (1.0 + 0.03 * std::sin(i * 1.7)));
        return out;
    }

    static db::TimingSeriesRow series(const std::string& kind, double centreMs) {
        db::TimingSeriesRow s;
        s.kind = kind;
        s.samplesMs = samples(centreMs, 20);
        s.medianMs = centreMs;
        s.meanMs = centreMs;
        s.stdMs = centreMs * 0.02;
        s.minMs = centreMs * 0.97;
        s.maxMs = centreMs * 1.03;
        s.wallMs = centreMs * 25;
        return s;
    }

    void evaluate(db::Connection& conn, db::Id attemptId, const std::string& task,
                  const Outcome& o) {
        db::RunRepository runs(conn);
        db::TurnRow turn;
        turn.attemptId = attemptId;
        turn.prompt = "Write a faster kernel for " + task + ".";
        turn.response = "Here is my kernel for " + task + ":\n```python\nclass ModelNew: ...\n```";
        turn.inputTokens = 1200;
        turn.outputTokens = 800;
        turn.latencyMs = 2500;
        turn.stopReason = "end_turn";
        runs.addTurn(turn);

        db::EvaluationRecord r;
        r.attemptId = attemptId;
        r.candidate.code = "# candidate for " + task + "\nclass ModelNew:\n    pass\n";
        r.candidate.codeHash = "code-" + std::to_string(attemptId);
        db::BuildRow build;
        build.status = o.verdict == "build_error" ? "failed" : "ok";
        build.seconds = 12.5;
        build.cacheKey = "key-" + std::to_string(attemptId);
        build.log = o.verdict == "build_error"
                        ? "kernel.cu(7): error: identifier \"blockIdx\" is undefined"
                        : "building extension... done";
        r.build = build;
        db::EnvironmentRow env;
        env.fingerprint = "cpu-fixture";
        env.device = "cpu";
        env.deviceName = "Fixture CPU";
        env.torch = "2.1.0";
        env.python = "3.11";
        env.detailsJson = "{\"threads\": 4}";
        r.environment = env;
        r.evaluation.verdict = o.verdict;
        r.evaluation.message = o.message;
        r.evaluation.correctnessPassed = o.verdict == "correct";
        r.evaluation.harnessSeconds = 3.5;
        r.evaluation.settingsJson = "{\"device\": \"cpu\"}";
        if (o.verdict == "correct" || o.verdict == "incorrect") {
            for (int i = 0; i < 5; ++i) {
                db::TrialRow t;
                t.index = i;
                t.passed = o.verdict == "correct" || i == 0;
                t.maxAbsError = t.passed ? 1e-6 : 3.2e-2;
                t.maxRelError = t.passed ? 2e-6 : 5e-2;
                t.mismatchFraction = t.passed ? 0.0 : 0.25;
                t.message = t.passed ? "" : "max abs error 3.2e-02 > atol 1e-04";
                r.trials.push_back(t);
            }
        }
        if (o.eager) {
            const double eagerMs = 1.0;
            r.timing.push_back(series("candidate", eagerMs / *o.eager));
            r.timing.push_back(series("eager", eagerMs));
            if (o.compile)
                r.timing.push_back(series("compile", eagerMs / *o.eager * *o.compile));
        }
        r.findings = o.findings;
        r.attemptStatus = "done";
        r.attemptVerdict = o.verdict;
        r.attemptMessage = o.message;
        r.suspicious = o.suspicious;
        r.speedupEager = o.eager;
        r.speedupCompile = o.compile;
        db::EvaluationRepository(conn).store(r);
    }

    void fill(db::Connection& conn) {
        db::CatalogRepository catalog(conn);
        const db::Id provider = catalog.upsertProvider({0, "demo", "demo", "", "{}"});
        std::vector<db::Id> models;
        for (const char* name : {"demo-a", "demo-b"}) {
            db::ModelRow m;
            m.providerId = provider;
            m.name = name;
            models.push_back(catalog.upsertModel(m));
        }
        const db::Id suite = catalog.upsertSuite({0, "sample", "fixture suite", ""});
        const std::vector<std::pair<std::pair<std::string, std::string>, int>> taskSpecs = {
            {{"l1_relu", "ReLU"}, 1},
            {{"l1_matmul", "Matrix multiply"}, 1},
            {{"l2_conv_bias", "Conv2d with bias add"}, 2},
            {{"l3_mlp", "MLP"}, 3},
        };
        std::vector<db::TaskRow> rows;
        for (const auto& [names, level] : taskSpecs) {
            db::TaskRow t;
            t.key = names.first;
            t.name = names.second;
            t.level = level;
            t.source = "class Model: pass";
            t.sourceHash = "hash-" + names.first;
            rows.push_back(t);
        }
        const std::vector<db::Id> tasks = catalog.upsertTasks(suite, rows);

        const std::string settings = QJsonDocument(engine::EvalSettings().toJson())
                                         .toJson(QJsonDocument::Compact)
                                         .toStdString();
        db::RunRepository runs(conn);
        db::RunRow run1;
        run1.name = "baseline sweep";
        run1.suiteId = suite;
        run1.settingsJson = settings;
        m_run1 = runs.createRun(run1, models, tasks, 1);
        db::RunRow run2;
        run2.name = "refinement";
        run2.suiteId = suite;
        run2.mode = "multi-turn";
        run2.settingsJson = settings;
        m_run2 = runs.createRun(run2, {models[0]}, {tasks[0], tasks[1]}, 1);
        for (const auto& a : runs.attempts(0))
            m_attempts[{a.runId, a.modelName + "/" + a.taskKey}] = a.id;

        runs.setRunStatus(m_run1, "running");
        evaluate(conn, attempt(m_run1, "demo-a", "l1_relu"), "l1_relu",
                 {"correct", 2.0, 1.5, false, {}, ""});
        evaluate(conn, attempt(m_run1, "demo-a", "l1_matmul"), "l1_matmul",
                 {"correct", 0.5, 0.25, false, {}, ""});
        evaluate(conn, attempt(m_run1, "demo-a", "l2_conv_bias"), "l2_conv_bias",
                 {"incorrect",
                  std::nullopt,
                  std::nullopt,
                  false,
                  {},
                  "max abs error 3.2e-02 > atol 1e-04"});
        evaluate(conn, attempt(m_run1, "demo-a", "l3_mlp"), "l3_mlp",
                 {"correct", 1.25, std::nullopt, false, {}, ""});
        evaluate(conn, attempt(m_run1, "demo-b", "l1_relu"), "l1_relu",
                 {"correct",
                  40.0,
                  30.0,
                  true,
                  {{"excessive-speedup", "suspicious", "",
                    "40.0x vs eager exceeds the plausibility limit of 10x"},
                   {"precision-downgrade", "info", "line 9", "__half arithmetic in the kernel"}},
                  "suspicious: 40.0x vs eager"});
        evaluate(conn, attempt(m_run1, "demo-b", "l1_matmul"), "l1_matmul",
                 {"build_error", std::nullopt, std::nullopt, false, {}, "build failed"});
        evaluate(conn, attempt(m_run1, "demo-b", "l2_conv_bias"), "l2_conv_bias",
                 {"correct", 1.1, 0.9, false, {}, ""});
        evaluate(conn, attempt(m_run1, "demo-b", "l3_mlp"), "l3_mlp",
                 {"rejected",
                  std::nullopt,
                  std::nullopt,
                  false,
                  {{"torch-op-in-forward", "reject", "line 12", "torch.matmul called in forward"}},
                  "static check: torch-op-in-forward at line 12"});
        runs.setRunStatus(m_run1, "finished");

        runs.setRunStatus(m_run2, "running");
        evaluate(conn, attempt(m_run2, "demo-a", "l1_relu"), "l1_relu",
                 {"correct", 2.5, 1.9, false, {}, ""});

        // l2_conv_bias is flagged on CUDA; l1_relu has baselines on two devices.
        db::Statement flag(
            conn, "INSERT INTO task_validations(task_id, device, flags_json) VALUES (?, 'cuda', "
                  "'[\"output_below_tolerance\"]'), (?, 'cpu', '[]')");
        flag.bind(1, tasks[2]).bind(2, tasks[0]).exec();
        conn.exec(
            "INSERT INTO baselines(task_hash, device, torch_version, settings_key, "
            "eager_median_ms, "
            "compile_median_ms, measured_at) VALUES "
            "('hash-l1_relu', 'NVIDIA H200', '2.5.0', 'fp32', 0.125, 0.1, '2026-01-01T00:00:00Z'), "
            "('hash-l1_relu', 'Fixture CPU', '2.1.0', 'fp32', 1.0, NULL, '2026-01-01T00:00:00Z')");
    }

    QTemporaryDir m_dir;
    QString m_path;
    db::Id m_run1 = 0;
    db::Id m_run2 = 0;
    std::map<std::pair<db::Id, std::string>, db::Id> m_attempts;
};

} // namespace kb::test
