#include "db/evaluationrepository.h"
#include "dbfixture.h"

#include <QTest>

using namespace kb::db;

class TestRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void createRunMakesTheWholeMatrix() {
        kb::test::DbFixture f;
        const Id run = f.createRun(2);
        RunRepository runs(f.database.connection());
        QCOMPARE(runs.attempts(run).size(), size_t(2 * 3 * 2));
        QCOMPARE(runs.queuedAttemptIds(run).size(), size_t(12));
        QCOMPARE(runs.statusCounts(run).at("queued"), 12);
        QCOMPARE(runs.run(run)->status, std::string("created"));
        QCOMPARE(runs.run(run)->suiteName, std::string("s"));
    }

    void runStatusStampsTimes() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        runs.setRunStatus(run, "running");
        QVERIFY(runs.run(run)->startedAt);
        QVERIFY(!runs.run(run)->finishedAt);
        for (const Id a : runs.queuedAttemptIds(run))
            runs.finishAttempt(a, "done", "correct", "");
        runs.setRunStatus(run, "finished");
        QVERIFY(runs.run(run)->finishedAt);
        QVERIFY_THROWS_EXCEPTION(Error, runs.setRunStatus(run, "exploded"));
        QVERIFY_THROWS_EXCEPTION(Error, runs.setRunStatus(run + 100, "running"));
    }

    // Issue: a run over a damaged database evaluated nothing and was stored as "finished".
    void aRunWithQueuedAttemptsIsNeverFinished_data() {
        QTest::addColumn<QString>("leftState");
        QTest::newRow("queued") << QStringLiteral("queued");
        QTest::newRow("generating") << QStringLiteral("generating");
        QTest::newRow("building") << QStringLiteral("building");
        QTest::newRow("evaluating") << QStringLiteral("evaluating");
    }
    void aRunWithQueuedAttemptsIsNeverFinished() {
        QFETCH(QString, leftState);
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        runs.setRunStatus(run, "running");
        const auto ids = runs.queuedAttemptIds(run);
        for (size_t i = 1; i < ids.size(); ++i)
            runs.finishAttempt(ids[i], "done", "correct", "");
        runs.setAttemptStatus(ids[0], leftState.toStdString());
        try {
            runs.setRunStatus(run, "finished");
            QFAIL("a run with an attempt not evaluated must not be marked finished");
        } catch (const RunNotFinishedError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("not evaluated")),
                     e.what());
        }
        QCOMPARE(runs.run(run)->status, std::string("running"));
        QVERIFY(!runs.run(run)->finishedAt);
        // Failing or cancelling such a run stays possible.
        runs.setRunStatus(run, "failed", "the engine stopped");
        QCOMPARE(runs.run(run)->status, std::string("failed"));
        runs.finishAttempt(ids[0], "done", "incorrect", "");
        runs.setRunStatus(run, "finished");
        QCOMPARE(runs.run(run)->status, std::string("finished"));
    }

    void requeueRemovesPartialWork() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        const auto ids = runs.queuedAttemptIds(run);
        runs.setAttemptStatus(ids[0], "building");
        runs.addTurn({0, ids[0], 0, "prompt", "response", 10, 20, 5.0, "stop"});
        runs.setAttemptStatus(ids[1], "evaluating");
        runs.finishAttempt(ids[2], "done", "correct", "");
        QCOMPARE(runs.requeueInterrupted(run), 2);
        QCOMPARE(runs.turns(ids[0]).size(), size_t(0));
        QCOMPARE(runs.statusCounts(run).at("queued"), 5);
        QCOMPARE(runs.statusCounts(run).at("done"), 1);
        QCOMPARE(runs.attempt(ids[2])->verdict, std::string("correct"));
        QCOMPARE(runs.requeueInterrupted(run), 0);
    }

    void turnsSumIntoAttemptRows() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        const Id a = runs.queuedAttemptIds(run)[0];
        runs.addTurn({0, a, 0, "p0", "r0", 100, 50, 1.0, "end_turn"});
        runs.addTurn({0, a, 1, "p1", "r1", 200, 70, 2.0, "end_turn"});
        const auto row = runs.attempt(a);
        QCOMPARE(row->inputTokens, 300);
        QCOMPARE(row->outputTokens, 120);
        QCOMPARE(row->turns, 2);
        QCOMPARE(runs.turns(a)[1].response, std::string("r1"));
        // time to first token and the model snapshot survive the round trip; absent stays absent
        QVERIFY(!runs.turns(a)[0].ttftMs.has_value());
        TurnRow streamed{0, a, 2, "p2", "r2", 1, 1, 3.0, "end_turn"};
        streamed.ttftMs = 250.25;
        streamed.modelSnapshot = "claude-test-20261101";
        runs.addTurn(streamed);
        QCOMPARE(runs.turns(a)[2].ttftMs.value_or(-1.0), 250.25);
        QCOMPARE(runs.turns(a)[2].modelSnapshot, std::string("claude-test-20261101"));
        // The same turn index twice is refused.
        QVERIFY_THROWS_EXCEPTION(Error, runs.addTurn({0, a, 1, "p", "r", 0, 0, 0, ""}));
    }

    void reviewIsRecordedAndValidated() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        const Id a = runs.queuedAttemptIds(run)[0];
        runs.setReview(a, "accepted", "checked the kernel by hand");
        QCOMPARE(runs.attempt(a)->review, std::string("accepted"));
        QVERIFY_THROWS_EXCEPTION(Error, runs.setReview(a, "maybe", ""));
        QVERIFY_THROWS_EXCEPTION(Error, runs.setReview(a + 1000, "accepted", ""));
    }

    void attemptsOfAllRuns() {
        kb::test::DbFixture f;
        f.createRun();
        f.createRun();
        RunRepository runs(f.database.connection());
        QCOMPARE(runs.attempts(0).size(), size_t(12));
        QCOMPARE(runs.runs().size(), size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestRuns)
#include "tst_runs.moc"
