#include "analysis/outcomes.h"
#include "benchcommon.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTextStream>
#include <random>

namespace kb::bench {
namespace {

constexpr int kTasks = 250; // KernelBench L1 100, L2 100, L3 50
constexpr int kModels = 10;
constexpr int kModelsPerRun = 5;
constexpr int kSamples = 5;
constexpr int kSamplesPerSeries = 5; // timing samples per series (candidate and eager)

// Writes the database in one transaction with prepared statements: runs of 5 models x 250 tasks
// x 5 samples (6,250 attempts each) until `attempts`; each with a turn, a candidate, a build and
// an evaluation; 60% correct with two timing series of 5 samples each.
void generate(const std::string& path, int attempts) {
    db::Database d(path);
    auto& c = d.connection();
    c.exec("PRAGMA synchronous = OFF");
    db::Transaction tx(c);
    c.exec("INSERT INTO providers(name, kind) VALUES ('bench', 'demo')");
    for (int m = 0; m < kModels; ++m)
        c.exec("INSERT INTO models(provider_id, name) VALUES (1, 'model-" + std::to_string(m) +
               "')");
    c.exec("INSERT INTO suites(name) VALUES ('bench')");
    {
        db::Statement t(c, "INSERT INTO tasks(suite_id, task_key, name, level, source, "
                           "source_hash) VALUES (1,?,?,?,?,?)");
        for (int i = 0; i < kTasks; ++i) {
            const int level = i < 100 ? 1 : i < 200 ? 2 : 3;
            const std::string key = "task-" + std::to_string(i);
            t.bind(1, key)
                .bind(2, key)
                .bind(3, level)
                .bind(4, "class Model: pass")
                .bind(5, "hash-" + key)
                .exec();
            t.reset();
        }
    }
    c.exec("INSERT INTO environments(fingerprint, device) VALUES ('env', 'cpu')");
    db::Statement run(
        c,
        "INSERT INTO runs(name, suite_id, status, settings_json) VALUES (?, 1, 'finished', '{}')");
    db::Statement rm(c, "INSERT INTO run_models(run_id, model_id) VALUES (?,?)");
    db::Statement at(c, "INSERT INTO attempts(run_id, model_id, task_id, sample_index, status, "
                        "verdict, speedup_eager, "
                        "started_at, finished_at) VALUES (?,?,?,?, 'done', ?, ?, "
                        "'2026-12-01T10:00:00Z', '2026-12-01T10:01:00Z')");
    db::Statement turn(c, "INSERT INTO turns(attempt_id, turn_index, prompt, response, "
                          "input_tokens, output_tokens, latency_ms) "
                          "VALUES (?, 0, 'prompt', 'response', 1200, 800, 3000)");
    db::Statement cand(
        c, "INSERT INTO candidates(attempt_id, code, code_hash) VALUES (?, 'code', 'hash')");
    db::Statement build(c, "INSERT INTO builds(candidate_id, status, seconds, cache_key, log) "
                           "VALUES (?, ?, 20.0, 'key', 'g++ ...')");
    db::Statement ev(c, "INSERT INTO evaluations(attempt_id, candidate_id, environment_id, "
                        "verdict, correctness_passed, trials) "
                        "VALUES (?,?,1,?,?,5)");
    db::Statement ser(c, "INSERT INTO timing_series(evaluation_id, kind, samples, median_ms, "
                         "mean_ms, std_ms, min_ms, max_ms) "
                         "VALUES (?,?,?,?,?,?,?,?)");
    db::Statement smp(c, "INSERT INTO timing_samples(series_id, sample_index, ms) VALUES (?,?,?)");
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const char* verdicts[] = {"incorrect", "build_error", "runtime_error", "timeout"};
    int made = 0;
    for (int r = 0; made < attempts; ++r) {
        run.bind(1, "bench run " + std::to_string(r + 1)).exec();
        run.reset();
        const db::Id runId = c.lastInsertId();
        for (int mi = 0; mi < kModelsPerRun && made < attempts; ++mi) {
            const int model = 1 + (r + mi) % kModels;
            rm.bind(1, runId).bind(2, model).exec();
            rm.reset();
            for (int task = 1; task <= kTasks && made < attempts; ++task) {
                for (int k = 0; k < kSamples && made < attempts; ++k, ++made) {
                    const bool correct = u(rng) < 0.6;
                    const double speedup = 0.3 + 2.5 * u(rng);
                    at.bind(1, runId).bind(2, model).bind(3, task).bind(4, k).bind(
                        5, correct ? "correct" : verdicts[made % 4]);
                    if (correct)
                        at.bind(6, speedup);
                    else
                        at.bindNull(6);
                    at.exec();
                    at.reset();
                    const db::Id attemptId = c.lastInsertId();
                    turn.bind(1, attemptId).exec();
                    turn.reset();
                    cand.bind(1, attemptId).exec();
                    cand.reset();
                    const db::Id candId = c.lastInsertId();
                    build.bind(1, candId)
                        .bind(2, verdicts[made % 4] == std::string("build_error") && !correct
                                     ? "failed"
                                     : "ok")
                        .exec();
                    build.reset();
                    ev.bind(1, attemptId)
                        .bind(2, candId)
                        .bind(3, correct ? "correct" : verdicts[made % 4])
                        .bind(4, correct)
                        .exec();
                    ev.reset();
                    const db::Id evalId = c.lastInsertId();
                    if (!correct)
                        continue;
                    for (const char* kind : {"candidate", "eager"}) {
                        const double base = std::string(kind) == "eager" ? speedup : 1.0;
                        ser.bind(1, evalId)
                            .bind(2, kind)
                            .bind(3, kSamplesPerSeries)
                            .bind(4, base)
                            .bind(5, base)
                            .bind(6, 0.01)
                            .bind(7, base)
                            .bind(8, base);
                        ser.exec();
                        ser.reset();
                        const db::Id seriesId = c.lastInsertId();
                        for (int s = 0; s < kSamplesPerSeries; ++s) {
                            smp.bind(1, seriesId)
                                .bind(2, s)
                                .bind(3, base * (1.0 + 0.01 * u(rng)))
                                .exec();
                            smp.reset();
                        }
                    }
                }
            }
        }
    }
    tx.commit();
    c.exec("ANALYZE");
    c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

template <typename F> double medianMs(int repeats, F&& f) {
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        QElapsedTimer timer;
        timer.start();
        f();
        t.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    return median(t);
}

} // namespace

int dbScale(const QStringList& args) {
    QTextStream out(stdout);
    const QString path = args.value(0, QStringLiteral("/tmp/kbstudio-bench-1m.kbdb"));
    const int attempts = args.value(1, QStringLiteral("1000000")).toInt();
    if (!QFileInfo::exists(path)) {
        out << "generating " << attempts << " attempts into " << path << " ..." << Qt::endl;
        QElapsedTimer t;
        t.start();
        generate(path.toStdString(), attempts);
        out << "generated in " << QString::number(t.elapsed() / 1000.0, 'f', 1) << " s, "
            << QString::number(QFileInfo(path).size() / 1e6, 'f', 0) << " MB" << Qt::endl;
    }
    std::int64_t total = 0, samples = 0, runs = 0;
    {
        db::Database d(path.toStdString(), db::Database::Access::ReadOnly);
        db::Statement a(d.connection(), "SELECT (SELECT count(*) FROM attempts), (SELECT count(*) "
                                        "FROM timing_samples), (SELECT max(id) FROM runs)");
        a.step();
        total = a.int64(0);
        samples = a.int64(1);
        runs = a.int64(2);
    }
    const db::Id lastRun = runs;
    Table table(
        {QStringLiteral("operation"), QStringLiteral("median ms"), QStringLiteral("target")});
    table.add({QStringLiteral("open the database (read-write, schema check)"),
               fmt(medianMs(9, [&] { db::Database d(path.toStdString()); })),
               QStringLiteral("< 300")});
    db::Database d(path.toStdString());
    auto& c = d.connection();
    size_t rows = 0;
    table.add({QStringLiteral("per-level leaderboard of one run (6,250 attempts)"),
               fmt(medianMs(5, [&] { rows += engine::leaderboardFor(c, lastRun).models.size(); })),
               QStringLiteral("< 300")});
    table.add({QStringLiteral("page of 1,000 results, first page of a run"),
               fmt(medianMs(
                   9, [&] { rows += db::RunRepository(c).attemptsPage(lastRun, 0, 1000).size(); })),
               QStringLiteral("< 300")});
    table.add({QStringLiteral("page of 1,000 results, all runs, offset 500,000"),
               fmt(medianMs(
                   9, [&] { rows += db::RunRepository(c).attemptsPage(0, 500000, 1000).size(); })),
               QStringLiteral("< 300")});
    table.add(
        {QStringLiteral("one attempt's detail (turns, timing samples, ...)"),
         fmt(medianMs(
             9, [&] { rows += db::EvaluationRepository(c).detail(total / 2).timing.size(); })),
         QString()});
    table.add({QStringLiteral("per-level leaderboard of all runs (every attempt)"),
               fmt(medianMs(5, [&] { rows += engine::leaderboardFor(c, 0).models.size(); })),
               QStringLiteral("< 300")});
    // The same two leaderboards computed row by row from every attempt, as before the database
    // kept task summaries: the reference the tests compare with, for scale.
    table.add(
        {QStringLiteral("  the same of one run, row by row (reference)"),
         fmt(medianMs(3, [&] { rows += engine::leaderboardFromRows(c, lastRun).models.size(); })),
         QString()});
    table.add({QStringLiteral("  the same of all runs, row by row (reference)"),
               fmt(medianMs(1, [&] { rows += engine::leaderboardFromRows(c, 0).models.size(); })),
               QString()});
    out << "database: " << total << " attempts in " << runs << " runs, " << samples
        << " timing samples" << Qt::endl;
    table.print(out);
    return rows > 0 ? 0 : 1;
}

} // namespace kb::bench
