// The leaderboard read from task_summaries (leaderboardFor) against the same leaderboard computed
// row by row from every attempt (leaderboardFromRows): equal field by field on a varied database
// (several runs, suites, providers, levels and samples; every verdict; suspicious attempts
// accepted, rejected and unreviewed; odd speedups; turns with tokens and costs), after every
// kind of change the triggers must follow, and after migration 4 fills the table of an older
// database.
#include "analysis/outcomes.h"
#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "db/schema.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

using namespace kb;

namespace {

std::int64_t scalar(db::Connection& c, const std::string& sql) {
    db::Statement q(c, sql);
    q.step();
    return q.int64(0);
}

QString str(const std::optional<double>& v) {
    return v ? QString::number(*v, 'g', 17) : QStringLiteral("n/a");
}

QString str(const std::optional<metrics::Interval>& v) {
    return v ? QStringLiteral("[%1, %2]").arg(v->low, 0, 'g', 17).arg(v->high, 0, 'g', 17)
             : QStringLiteral("n/a");
}

// The first difference between two cells, or an empty string. Doubles must match to the bit.
QString cellDifference(const metrics::LeaderboardCell& a, const metrics::LeaderboardCell& b) {
    QStringList diffs;
    const auto check = [&](const char* name, const QString& x, const QString& y) {
        if (x != y)
            diffs << QStringLiteral("%1: sql %2, rows %3").arg(QLatin1String(name), x, y);
    };
    const auto num = [](auto v) {
        if constexpr (std::is_floating_point_v<decltype(v)>)
            return QString::number(v, 'g', 17);
        else
            return QString::number(static_cast<qlonglong>(v));
    };
    check("model", QString::fromStdString(a.model), QString::fromStdString(b.model));
    check("level", num(a.level), num(b.level));
    check("tasks", num(a.tasks), num(b.tasks));
    check("attempted", num(a.attempted), num(b.attempted));
    check("built", num(a.built), num(b.built));
    check("correct", num(a.correct), num(b.correct));
    check("timed", num(a.timed), num(b.timed));
    check("passRate", num(a.passRate), num(b.passRate));
    check("passRateCi", str(a.passRateCi), str(b.passRateCi));
    check("fastP size", num(a.fastP.size()), num(b.fastP.size()));
    for (std::size_t i = 0; i < std::min(a.fastP.size(), b.fastP.size()); ++i) {
        check("fastP p", num(a.fastP[i].p), num(b.fastP[i].p));
        check("fastP eager", num(a.fastP[i].vsEager), num(b.fastP[i].vsEager));
        check("fastP compile", str(a.fastP[i].vsCompile), str(b.fastP[i].vsCompile));
    }
    check("geomeanEager", str(a.geomeanEager), str(b.geomeanEager));
    check("geomeanCompile", str(a.geomeanCompile), str(b.geomeanCompile));
    check("geomeanFallbackEager", str(a.geomeanFallbackEager), str(b.geomeanFallbackEager));
    check("geomeanFallbackCompile", str(a.geomeanFallbackCompile), str(b.geomeanFallbackCompile));
    check("medianEager", str(a.medianEager), str(b.medianEager));
    check("medianCompile", str(a.medianCompile), str(b.medianCompile));
    check("geomeanEagerCi", str(a.geomeanEagerCi), str(b.geomeanEagerCi));
    check("suspicious", num(a.suspicious), num(b.suspicious));
    check("acceptedSuspicious", num(a.acceptedSuspicious), num(b.acceptedSuspicious));
    check("rejected", num(a.rejected), num(b.rejected));
    check("noisy", num(a.noisy), num(b.noisy));
    check("geomeanCompileCi", str(a.geomeanCompileCi), str(b.geomeanCompileCi));
    check("passAtK size", num(a.passAtK.size()), num(b.passAtK.size()));
    for (std::size_t i = 0; i < std::min(a.passAtK.size(), b.passAtK.size()); ++i)
        check("passAtK", str(a.passAtK[i].value), str(b.passAtK[i].value));
    check("inputTokens", num(a.inputTokens), num(b.inputTokens));
    check("outputTokens", num(a.outputTokens), num(b.outputTokens));
    // A sum of prices, added in another order by SQL: equal to rounding, not to the bit.
    check("costUsd", QString::number(a.costUsd, 'g', 12), QString::number(b.costUsd, 'g', 12));
    check("turns", num(a.turns), num(b.turns));
    check("wallSeconds", num(a.wallSeconds), num(b.wallSeconds));
    if (diffs.isEmpty())
        return {};
    return QStringLiteral("%1 L%2: %3")
        .arg(QString::fromStdString(a.model))
        .arg(a.level)
        .arg(diffs.join(QStringLiteral("; ")));
}

QString boardDifference(const metrics::Leaderboard& sql, const metrics::Leaderboard& rows) {
    if (sql.models != rows.models)
        return QStringLiteral("models differ");
    if (sql.levels != rows.levels)
        return QStringLiteral("levels differ");
    if (sql.tasksPerLevel != rows.tasksPerLevel)
        return QStringLiteral("tasks per level differ");
    if (sql.levelWeights != rows.levelWeights)
        return QStringLiteral("level weights differ");
    if (sql.compileAvailable != rows.compileAvailable)
        return QStringLiteral("compile availability differs");
    if (sql.pValues != rows.pValues)
        return QStringLiteral("p values differ");
    if (sql.cells.size() != rows.cells.size() || sql.overall.size() != rows.overall.size())
        return QStringLiteral("row counts differ");
    for (std::size_t i = 0; i < sql.cells.size(); ++i) {
        if (auto d = cellDifference(sql.cells[i], rows.cells[i]); !d.isEmpty())
            return d;
    }
    for (std::size_t i = 0; i < sql.overall.size(); ++i) {
        if (auto d = cellDifference(sql.overall[i], rows.overall[i]); !d.isEmpty())
            return QStringLiteral("overall ") + d;
    }
    return {};
}

// A database with two providers (both serving a model named "alpha"), two suites (both with a
// level-1 task "a"), tasks on all four levels and runs of 1 to 4 samples. Attempts are created
// queued and finished by updates, or inserted finished, so both trigger paths are used.
class VariedDatabase {
public:
    explicit VariedDatabase(const std::string& path)
        : database(path) {
        auto& c = database.connection();
        db::CatalogRepository catalog(c);
        const db::Id p1 = catalog.upsertProvider({0, "one", "demo", "", "{}"});
        const db::Id p2 = catalog.upsertProvider({0, "two", "demo", "", "{}"});
        for (const auto& [provider, name] : std::vector<std::pair<db::Id, std::string>>{
                 {p1, "alpha"}, {p1, "beta"}, {p2, "alpha"}, {p2, "gamma"}}) {
            db::ModelRow m;
            m.providerId = provider;
            m.name = name;
            models.push_back(catalog.upsertModel(m));
        }
        const auto suite = [&](const char* name,
                               const std::vector<std::pair<std::string, int>>& keys) {
            const db::Id id = catalog.upsertSuite({0, name, "", ""});
            std::vector<db::TaskRow> rows;
            for (const auto& [key, level] : keys) {
                db::TaskRow t;
                t.key = key;
                t.name = key;
                t.level = level;
                t.source = "class Model: pass";
                t.sourceHash = std::string(name) + key;
                rows.push_back(t);
            }
            return std::make_pair(id, catalog.upsertTasks(id, rows));
        };
        suites.push_back(
            suite("s1", {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 2}, {"e", 2}, {"f", 3}, {"g", 4}}));
        suites.push_back(suite("s2", {{"a", 1}, {"h", 2}, {"i", 3}}));
    }

    // A run of the given models on the tasks of a suite, finished at random.
    db::Id addRun(std::size_t suiteIndex, const std::vector<db::Id>& runModels, int samples,
                  bool insertFinished) {
        auto& c = database.connection();
        const auto& [suiteId, taskIds] = suites.at(suiteIndex);
        db::RunRow run;
        run.name = "run";
        run.suiteId = suiteId;
        db::RunRepository repo(c);
        if (!insertFinished) {
            const db::Id id = repo.createRun(run, runModels, taskIds, samples);
            for (const db::AttemptRow& a : repo.attempts(id))
                finish(a.id);
            return id;
        }
        const db::Id id = repo.createRun(run, runModels, {}, samples);
        db::Statement ins(c,
                          "INSERT INTO attempts(run_id, model_id, task_id, sample_index, verdict, "
                          "suspicious, review, speedup_eager, speedup_compile) "
                          "VALUES (?,?,?,?,?,?,?,?,?)");
        for (db::Id model : runModels) {
            for (db::Id task : taskIds) {
                for (int k = 0; k < samples; ++k) {
                    const auto v = randomValues(levelOf(task));
                    ins.bind(1, id)
                        .bind(2, model)
                        .bind(3, task)
                        .bind(4, k)
                        .bind(5, v.verdict)
                        .bind(6, v.suspicious)
                        .bind(7, v.review)
                        .bind(8, v.eager)
                        .bind(9, v.compile);
                    ins.exec();
                    addTurns(c.lastInsertId());
                }
            }
        }
        return id;
    }

    void finish(db::Id attempt) {
        auto& c = database.connection();
        db::Statement level(
            c, "SELECT t.level FROM attempts a JOIN tasks t ON t.id = a.task_id WHERE a.id = ?");
        level.bind(1, attempt);
        level.step();
        const auto v = randomValues(level.int32(0));
        db::Statement up(c, "UPDATE attempts SET status = 'done', verdict = ?, suspicious = ?, "
                            "review = ?, speedup_eager = ?, speedup_compile = ? WHERE id = ?");
        up.bind(1, v.verdict)
            .bind(2, v.suspicious)
            .bind(3, v.review)
            .bind(4, v.eager)
            .bind(5, v.compile)
            .bind(6, attempt);
        up.exec();
        addTurns(attempt);
    }

    db::Database database;
    std::vector<db::Id> models;
    std::vector<std::pair<db::Id, std::vector<db::Id>>> suites;
    std::mt19937 rng{20261202};

private:
    struct Values {
        std::string verdict;
        bool suspicious = false;
        std::string review;
        std::optional<double> eager;
        std::optional<double> compile;
    };

    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

    int levelOf(db::Id task) {
        db::Statement q(database.connection(), "SELECT level FROM tasks WHERE id = ?");
        q.bind(1, task);
        q.step();
        return q.int32(0);
    }

    std::optional<double> speedup() {
        static const double odd[] = {0.0, -1.0, std::numeric_limits<double>::infinity(), 1.0, 1.05};
        switch (pick(6)) {
        case 0:
            return std::nullopt;
        case 1:
            return odd[pick(5)];
        default:
            return 0.1 + 3.0 * std::uniform_real_distribution<double>(0, 1)(rng);
        }
    }

    Values randomValues(int level) {
        static const char* verdicts[] = {
            "pending", "correct",  "incorrect",         "build_error",  "runtime_error",
            "timeout", "rejected", "invalid_candidate", "no_candidate", "harness_error"};
        Values v;
        v.verdict = pick(3) == 0 ? verdicts[pick(10)] : "correct";
        v.suspicious = pick(4) == 0;
        const int r = pick(7);
        v.review = r == 0 ? "accepted" : r == 1 ? "rejected" : "none";
        v.eager = speedup();
        // Compile speedups only on levels 1 and 3: levels 2 and 4 have no compile baseline.
        if (level == 1 || level == 3)
            v.compile = speedup();
        return v;
    }

    void addTurns(db::Id attempt) {
        db::RunRepository repo(database.connection());
        const int turns = pick(4);
        for (int i = 0; i < turns; ++i) {
            db::TurnRow t(0, attempt, repo.nextTurnIndex(attempt), "p", "r", 100 + pick(900),
                          10 + pick(90), 5.0, "stop");
            if (pick(2) == 0)
                t.costUsd = 0.001 * (1 + pick(9));
            repo.addTurn(t);
        }
        repo.updateAttemptCost(attempt);
    }
};

} // namespace

class TestLeaderboardSql : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const char* name) const {
        return QString(m_dir.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    static void compareAll(db::Connection& c) {
        std::vector<db::Id> runs{0};
        for (const auto& run : db::RunRepository(c).runs())
            runs.push_back(run.id);
        for (db::Id run : runs) {
            const auto sql = engine::leaderboardFor(c, run);
            const auto rows = engine::leaderboardFromRows(c, run);
            const QString diff = boardDifference(sql, rows);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("run %1: %2").arg(run).arg(diff)));
        }
    }

    static void fill(VariedDatabase& d) {
        const auto& m = d.models;
        d.addRun(0, {m[0], m[1], m[2]}, 3, false);
        d.addRun(0, {m[0], m[3]}, 1, true);
        d.addRun(1, {m[1], m[2], m[3]}, 4, true);
        d.addRun(1, {m[0]}, 2, false);
        d.addRun(0, {m[2]}, 2, true);
    }

private Q_SLOTS:
    void sqlLeaderboardEqualsRowByRow() {
        VariedDatabase d(path("varied.kbdb"));
        fill(d);
        auto& c = d.database.connection();
        // The data covers what it must: every verdict, each review of suspicious attempts,
        // unusable and usable speedups, attempts without turns.
        QCOMPARE(scalar(c, "SELECT count(DISTINCT verdict) FROM attempts"), 10);
        QVERIFY(
            scalar(c, "SELECT count(*) FROM attempts WHERE suspicious AND review = 'accepted'") >
            0);
        QVERIFY(
            scalar(c, "SELECT count(*) FROM attempts WHERE suspicious AND review = 'rejected'") >
            0);
        QVERIFY(scalar(c, "SELECT count(*) FROM attempts WHERE suspicious AND review = 'none' AND "
                          "verdict = 'correct'") > 0);
        QVERIFY(scalar(c, "SELECT count(*) FROM attempts WHERE speedup_eager >= 9e999") > 0);
        QVERIFY(scalar(c, "SELECT count(*) FROM attempts WHERE speedup_compile <= 0") > 0);
        QVERIFY(scalar(c, "SELECT count(*) FROM attempts a WHERE NOT EXISTS (SELECT 1 FROM turns "
                          "WHERE attempt_id = a.id)") > 0);
        QVERIFY(scalar(c, "SELECT count(*) FROM turns") > 100);

        const auto all = engine::leaderboardFor(c, 0);
        QCOMPARE(all.models, (std::vector<std::string>{"alpha", "beta", "gamma"}));
        QCOMPARE(all.levels, (std::vector<int>{1, 2, 3, 4}));
        QCOMPARE(all.tasksPerLevel.at(1), 3); // a (both suites), b, c
        QVERIFY(all.compileAvailable.at(1));
        QVERIFY(!all.compileAvailable.at(2));
        compareAll(c);
    }

    void summariesFollowEveryChange() {
        VariedDatabase d(path("changes.kbdb"));
        fill(d);
        auto& c = d.database.connection();
        db::RunRepository repo(c);
        const auto runs = repo.runs();

        // A person's review, in both directions.
        c.exec("UPDATE attempts SET review = 'accepted' WHERE suspicious AND id % 3 = 0");
        c.exec("UPDATE attempts SET review = 'rejected' WHERE verdict = 'correct' AND id % 5 = 0");
        compareAll(c);
        // Speedups and verdicts changed afterwards.
        c.exec("UPDATE attempts SET speedup_eager = speedup_eager * 2 WHERE id % 4 = 1");
        c.exec("UPDATE attempts SET verdict = 'timeout' WHERE id % 7 = 2");
        compareAll(c);
        // Speedup intervals and noisy flags (schema 7): fast_p compares their lower bounds.
        c.exec("INSERT INTO attempt_timing(attempt_id, speedup_eager_low, speedup_eager_high, "
               "noisy_eager) "
               "SELECT id, speedup_eager * 0.97, speedup_eager * 1.03, id % 2 FROM attempts WHERE "
               "id % 3 = 1");
        compareAll(c);
        c.exec("INSERT INTO attempt_timing(attempt_id, speedup_compile_low, speedup_compile_high) "
               "SELECT id, speedup_compile * 0.9, speedup_compile * 1.1 FROM attempts WHERE id % 5 "
               "= 3 "
               "ON CONFLICT(attempt_id) DO UPDATE SET speedup_compile_low = "
               "excluded.speedup_compile_low, "
               "speedup_compile_high = excluded.speedup_compile_high");
        c.exec("DELETE FROM attempt_timing WHERE attempt_id % 7 = 0");
        compareAll(c);
        // Turns removed, added and changed.
        c.exec("DELETE FROM turns WHERE id % 3 = 0");
        c.exec("UPDATE turns SET input_tokens = input_tokens + 1000 WHERE id % 4 = 0");
        c.exec("UPDATE turns SET attempt_id = attempt_id + 1 WHERE id % 11 = 0 AND "
               "NOT EXISTS (SELECT 1 FROM turns u WHERE u.attempt_id = turns.attempt_id + 1 "
               "AND u.turn_index = turns.turn_index) AND attempt_id + 1 <= (SELECT max(id) FROM "
               "attempts)");
        compareAll(c);
        // Interrupted attempts put back in the queue lose what they had produced.
        c.exec("UPDATE attempts SET status = 'evaluating' WHERE run_id = " +
               std::to_string(runs.back().id));
        QVERIFY(repo.requeueInterrupted(runs.back().id) > 0);
        compareAll(c);
        // An attempt moved to another task, single attempts deleted, a whole run deleted.
        c.exec("UPDATE attempts SET sample_index = sample_index + 100, task_id = "
               "(SELECT min(task_id) FROM attempts) WHERE id = (SELECT max(id) FROM attempts)");
        c.exec("DELETE FROM attempts WHERE id % 13 = 0");
        c.exec("DELETE FROM runs WHERE id = " + std::to_string(runs.front().id));
        compareAll(c);
        QCOMPARE(scalar(c, "SELECT count(*) FROM task_summaries WHERE run_id = " +
                               std::to_string(runs.front().id)),
                 0);
        // No summary without attempts, and the sums match the attempts exactly.
        QCOMPARE(scalar(c, "SELECT sum(attempts) FROM task_summaries"),
                 scalar(c, "SELECT count(*) FROM attempts"));
        QCOMPARE(scalar(c, "SELECT sum(turns) FROM task_summaries"),
                 scalar(c, "SELECT count(*) FROM turns"));
        // Everything deleted: no row left behind.
        c.exec("DELETE FROM runs");
        QCOMPARE(scalar(c, "SELECT count(*) FROM task_summaries"), 0);
        QCOMPARE(engine::leaderboardFor(c, 0).cells.size(), std::size_t(0));
    }

    void migrationFillsSummariesOfAnOlderDatabase() {
        const auto p = path("older.kbdb");
        {
            VariedDatabase d(p);
            fill(d);
            // Back to schema 3, as a database written before migration 4 existed.
            auto& c = d.database.connection();
            std::vector<std::string> triggers;
            {
                db::Statement q(c, "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name "
                                   "LIKE 'task_summaries%'");
                while (q.step())
                    triggers.push_back(q.text(0));
            }
            QCOMPARE(triggers.size(),
                     std::size_t(10)); // 7 of schema 4, 3 more on attempt_timing (7)
            for (const auto& t : triggers)
                c.exec("DROP TRIGGER " + t);
            c.exec("DROP TABLE task_summaries");
            c.exec("DELETE FROM schema_version WHERE version >= 4");
            // Written without the triggers: only the migration can account for these.
            c.exec("UPDATE attempts SET review = 'rejected' WHERE id % 6 = 0");
            c.exec("DELETE FROM turns WHERE id % 5 = 0");
        }
        {
            // Read-only, the older database is not migrated: its leaderboard is read row by row.
            db::Database readOnly(p, db::Database::Access::ReadOnly);
            QCOMPARE(readOnly.schemaVersion(), 3);
            compareAll(readOnly.connection());
        }
        db::Database reopened(p);
        QCOMPARE(reopened.schemaVersion(), db::currentSchemaVersion());
        compareAll(reopened.connection());
    }
};

QTEST_GUILESS_MAIN(TestLeaderboardSql)
#include "tst_leaderboardsql.moc"
