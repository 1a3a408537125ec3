// Speedup intervals end to end through the database: schema 7 stores them, the task summaries
// keep the clearing speedup fast_p uses (the same as computed from every attempt), and the
// reports show intervals, noisy flags, pass@k, geomean intervals and cost.
#include "analysis/outcomes.h"
#include "db/schema.h"
#include "report/csvexport.h"
#include "report/exporter.h"
#include "report/leaderboardformat.h"
#include "report/reportdata.h"
#include "report/textformat.h"
#include "reportfixture.h"

#include <QTest>

using namespace kb;

namespace {

struct Measured {
    double speedup;
    std::optional<double> low;
    std::optional<double> high;
    bool noisy;
};

// One model on four level-1 tasks, each attempt correct with the given speedup and interval.
class SmallDatabase {
public:
    explicit SmallDatabase(const std::vector<Measured>& measured)
        : database(":memory:") {
        auto& c = database.connection();
        db::CatalogRepository catalog(c);
        const db::Id provider = catalog.upsertProvider({0, "p", "demo", "", "{}"});
        db::ModelRow m;
        m.providerId = provider;
        m.name = "m";
        const db::Id model = catalog.upsertModel(m);
        const db::Id suite = catalog.upsertSuite({0, "s", "", ""});
        std::vector<db::TaskRow> rows;
        for (std::size_t i = 0; i < measured.size(); ++i) {
            db::TaskRow t;
            t.key = "t" + std::to_string(i);
            t.name = t.key;
            t.level = 1;
            t.source = "x" + t.key;
            t.sourceHash = "h" + t.key;
            rows.push_back(t);
        }
        const auto tasks = catalog.upsertTasks(suite, rows);
        db::RunRow r;
        r.suiteId = suite;
        db::RunRepository runs(c);
        run = runs.createRun(r, {model}, tasks, 1);
        const auto attempts = runs.attempts(run);
        db::EvaluationRepository evals(c);
        for (std::size_t i = 0; i < measured.size(); ++i) {
            db::EvaluationRecord e;
            e.attemptId = attempts[i].id;
            e.candidate = {0, e.attemptId, 0, "code", "hash" + std::to_string(i), "kernelbench"};
            e.evaluation.verdict = "correct";
            e.attemptVerdict = "correct";
            e.speedupEager = measured[i].speedup;
            e.uncertainty.eagerLow = measured[i].low;
            e.uncertainty.eagerHigh = measured[i].high;
            e.uncertainty.noisyEager = measured[i].noisy;
            e.uncertainty.regime = "device-bound";
            evals.store(e);
            ids.push_back(e.attemptId);
        }
    }

    db::Database database;
    db::Id run = 0;
    std::vector<db::Id> ids;
};

double fastOne(const metrics::Leaderboard& board) {
    return board.find("m", 1)->fastPAt(1.0)->vsEager;
}

} // namespace

class TestUncertainty : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void schemaHasVersionSeven() {
        db::Database database(":memory:");
        QVERIFY(database.schemaVersion() >= 7);
        db::Statement q(
            database.connection(),
            "SELECT count(*) FROM pragma_table_info('attempt_timing') WHERE name IN "
            "('attempt_id','speedup_eager_low','speedup_eager_high','speedup_compile_low',"
            "'speedup_compile_high','noisy_eager','noisy_compile','regime')");
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), 8);
        db::Statement s(database.connection(),
                        "SELECT count(*) FROM pragma_table_info('task_summaries') WHERE name IN "
                        "('clear_eager','clear_compile','noisy','cost_usd')");
        QVERIFY(s.step());
        QCOMPARE(s.int64(0), 4);
    }

    void storedAndReadBack() {
        SmallDatabase small({{1.03, 0.99, 1.07, true}, {1.2, std::nullopt, std::nullopt, false}});
        db::RunRepository runs(small.database.connection());
        const auto a = runs.attempt(small.ids[0]);
        QVERIFY(a);
        QCOMPARE(*a->uncertainty.eagerLow, 0.99);
        QCOMPARE(*a->uncertainty.eagerHigh, 1.07);
        QVERIFY(a->uncertainty.noisyEager);
        QCOMPARE(a->uncertainty.regime, std::string("device-bound"));
        const auto b = runs.attempt(small.ids[1]);
        QVERIFY(!b->uncertainty.eagerLow);
        QVERIFY(!b->uncertainty.noisy());
        const auto outcome = engine::toOutcome(*a);
        QCOMPARE(*outcome.eagerLow, 0.99);
        QVERIFY(outcome.noisy);
    }

    // fast_1 over 4 tasks, from the task summaries and from every attempt: the same.
    void fastPClearsThroughSummaries_data() {
        QTest::addColumn<double>("low0");
        QTest::addColumn<double>("expected");
        QTest::addColumn<int>("noisy");
        // t0 1.03 with [low0, 1.07]; t1 1.2 without interval; t2 0.9; t3 1.5 with [1.4, 1.6].
        QTest::newRow("interval holds 1") << 0.99 << 0.5 << 1;
        QTest::newRow("interval clears 1") << 1.01 << 0.75 << 0;
        QTest::newRow("low exactly 1") << 1.0 << 0.5 << 1;
    }

    void fastPClearsThroughSummaries() {
        QFETCH(double, low0);
        QFETCH(double, expected);
        QFETCH(int, noisy);
        SmallDatabase small({{1.03, low0, 1.07, noisy != 0},
                             {1.2, std::nullopt, std::nullopt, false},
                             {0.9, 0.85, 0.95, false},
                             {1.5, 1.4, 1.6, false}});
        auto& c = small.database.connection();
        const auto sql = engine::leaderboardFor(c, small.run);
        const auto rows = engine::leaderboardFromRows(c, small.run);
        QCOMPARE(fastOne(sql), expected);
        QCOMPARE(fastOne(rows), expected);
        QCOMPARE(sql.find("m", 1)->noisy, noisy);
        QCOMPARE(rows.find("m", 1)->noisy, noisy);
        // The geomean uses the point estimates and carries its bootstrap interval.
        QCOMPARE(*sql.find("m", 1)->geomeanEager, *rows.find("m", 1)->geomeanEager);
        QVERIFY(sql.find("m", 1)->geomeanEagerCi);
        QCOMPARE(sql.find("m", 1)->geomeanEagerCi->low, rows.find("m", 1)->geomeanEagerCi->low);
    }

    // A re-evaluation that changes only the interval updates the summary (the trigger watches
    // the new columns).
    void summaryFollowsANewInterval() {
        SmallDatabase small({{1.03, 0.99, 1.07, false}});
        auto& c = small.database.connection();
        QCOMPARE(fastOne(engine::leaderboardFor(c, small.run)), 0.0);
        c.exec("UPDATE attempt_timing SET speedup_eager_low = 1.02");
        QCOMPARE(fastOne(engine::leaderboardFor(c, small.run)), 1.0);
        {
            db::Statement q(c, "SELECT clear_eager FROM task_summaries");
            QVERIFY(q.step());
            QCOMPARE(q.real(0), 1.02);
        }
        // Re-evaluated without an interval: the row goes, the point estimate counts again.
        c.exec("DELETE FROM attempt_timing");
        QCOMPARE(fastOne(engine::leaderboardFor(c, small.run)), 1.0);
        c.exec("UPDATE attempts SET speedup_eager = 0.99");
        QCOMPARE(fastOne(engine::leaderboardFor(c, small.run)), 0.0);
    }

    // Migration 7 can be applied again to its own result (an interrupted or repeated upgrade),
    // keeping the stored intervals and recomputing the summaries.
    void migrationAppliesAgain() {
        SmallDatabase small({{1.03, 1.01, 1.07, false}, {0.5, 0.45, 0.55, true}});
        auto& c = small.database.connection();
        const auto before = fastOne(engine::leaderboardFor(c, small.run));
        // Migration 7 and the ones after it, applied again.
        c.exec("DELETE FROM schema_version WHERE version >= 7");
        c.exec("UPDATE task_summaries SET clear_eager = 99"); // damaged, to be recomputed
        QCOMPARE(fastOne(engine::leaderboardFor(c, small.run)), 1.0);
        db::migrate(c);
        QCOMPARE(db::storedSchemaVersion(c), db::currentSchemaVersion());
        QCOMPARE(fastOne(engine::leaderboardFor(c, small.run)), before);
        QCOMPARE(fastOne(engine::leaderboardFor(c, small.run)), 0.5);
        QCOMPARE(*db::RunRepository(c).attempt(small.ids[1])->uncertainty.eagerLow, 0.45);
    }

    void speedupDigits_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("1.234") << 1.234 << QStringLiteral("1.23x");
        QTest::newRow("40") << 40.0 << QStringLiteral("40.00x");
        QTest::newRow("0.987") << 0.987 << QStringLiteral("0.987x");
        QTest::newRow("0.0123") << 0.0123 << QStringLiteral("0.0123x");
        QTest::newRow("0.004") << 0.004 << QStringLiteral("0.00400x");
        QTest::newRow("0.5") << 0.5 << QStringLiteral("0.500x");
    }

    void speedupDigits() {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(report::formatSpeedupValue(value), text);
        QVERIFY(!report::formatSpeedupValue(value).startsWith(QStringLiteral("0.00x")));
    }

    void intervalText() {
        QCOMPARE(report::formatSpeedupInterval(1.234, 1.19, 1.27),
                 QStringLiteral("1.23x [1.19, 1.27]"));
        QCOMPARE(report::formatSpeedupInterval(1.234, std::nullopt, std::nullopt),
                 QStringLiteral("1.23x"));
    }

    void reportsCarryIntervalsAndCost() {
        test::ReportFixture fixture;
        const auto data = report::loadReportData(fixture.database.connection(), {});
        const QString csv = QString::fromUtf8(report::attemptsCsv(data));
        const QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList header = lines.front().split(QLatin1Char(','));
        const auto column = [&](const char* name) { return header.indexOf(QLatin1String(name)); };
        QVERIFY(column("speedup_eager_low") >= 0);
        QVERIFY(column("cost_usd") >= 0);
        bool sawTight = false;
        bool sawNoisy = false;
        for (const auto& line : lines.mid(1)) {
            if (line.startsWith(QString::number(fixture.at("model-a", "L1_1")) +
                                QLatin1Char(','))) {
                // no quoted field before the columns read here
                const QStringList f = line.split(QLatin1Char(','));
                sawTight = true;
                QCOMPARE(f.value(column("speedup_eager_low")), QStringLiteral("1.9"));
                QCOMPARE(f.value(column("speedup_eager_high")), QStringLiteral("2.1"));
                QCOMPARE(f.value(column("noisy")), QStringLiteral("false"));
                QCOMPARE(f.value(column("cost_usd")), QStringLiteral("0.0123"));
                QCOMPARE(f.value(column("cache_read_tokens")), QStringLiteral("300"));
                QCOMPARE(f.value(column("base_url_host")), QStringLiteral("localhost:8000"));
            }
            if (line.startsWith(QString::number(fixture.at("model-b", "L1_1")) +
                                QLatin1Char(','))) {
                sawNoisy = true;
                QVERIFY(line.contains(QStringLiteral(",true,launch-bound,")));
            }
        }
        QVERIFY(sawTight && sawNoisy);

        const QString md =
            QString::fromUtf8(report::renderExport(report::ExportFormat::Markdown, data, {}));
        QVERIFY(md.contains(QStringLiteral("pass@1")));
        QVERIFY(md.contains(QStringLiteral("pass@2"))); // model-a has two samples of L1_1
        QVERIFY(md.contains(QStringLiteral("x [")));    // geomeans with their interval
        QVERIFY(md.contains(QStringLiteral("## Cost and usage")));
        QVERIFY(md.contains(QStringLiteral("$0.0123")));
        QVERIFY(!md.contains(QStringLiteral("0.00x")));

        const QString text = report::formatLeaderboardText(data.leaderboard);
        QVERIFY(text.contains(QStringLiteral("geomean vs eager [95% CI]")));
        QVERIFY(text.contains(QStringLiteral("pass@2")));
    }
};

QTEST_GUILESS_MAIN(TestUncertainty)
#include "tst_uncertainty.moc"
