// The run engine's pure parts: the turns of an attempt (the best turn decides the attempt's
// summary; an instrument failure leaves an earlier result standing), how busy the evaluation
// slots were, and the progress counts.
#include "run/runtypes.h"
#include "run/slotmeter.h"
#include "run/turntracker.h"

#include <QTest>

using namespace kb;

namespace {

db::EvaluationRecord turn(const char* verdict, std::optional<double> speedup,
                          const char* status = "done") {
    db::EvaluationRecord r;
    r.evaluation.verdict = verdict;
    r.evaluation.message = std::string("turn ") + verdict;
    r.attemptVerdict = verdict;
    r.attemptMessage = std::string("summary ") + verdict;
    r.attemptStatus = status;
    r.speedupEager = speedup;
    return r;
}

engine::GenerationSettings turns(int n, double target = 100.0) {
    engine::GenerationSettings g;
    g.turns = n;
    g.targetSpeedup = target;
    return g;
}

} // namespace

class TestRunParts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneShotStopsAfterTheFirstTurn() {
        engine::TurnTracker t;
        auto r = turn("incorrect", std::nullopt);
        QVERIFY(!t.absorb(r, false, turns(3)));
        QCOMPARE(t.evaluatedTurns(), 1);
        QVERIFY(t.best());
    }

    void theBestTurnDecidesTheSummary() {
        engine::TurnTracker t;
        auto first = turn("correct", 1.5);
        QVERIFY(t.absorb(first, true, turns(3)));
        auto second = turn("incorrect", std::nullopt);
        QVERIFY(t.absorb(second, true, turns(3)));
        // The evaluation of the turn is its own; the attempt's summary follows the best turn.
        QCOMPARE(second.evaluation.verdict, std::string("incorrect"));
        QCOMPARE(second.attemptVerdict, std::string("correct"));
        QCOMPARE(*second.speedupEager, 1.5);
        auto third = turn("correct", 2.5);
        QVERIFY(!t.absorb(third, true, turns(3))); // no turns left
        QCOMPARE(*t.best()->speedupEager, 2.5);
        QCOMPARE(t.evaluatedTurns(), 3);
    }

    void reachingTheTargetStops() {
        engine::TurnTracker t;
        auto r = turn("correct", 3.0);
        QVERIFY(!t.absorb(r, true, turns(5, 2.0)));
    }

    void instrumentFailureKeepsTheEarlierResult() {
        engine::TurnTracker t;
        auto first = turn("correct", 1.2);
        QVERIFY(t.absorb(first, true, turns(3)));
        auto broken = turn("harness_error", std::nullopt, "failed");
        QVERIFY(!t.absorb(broken, true, turns(3)));
        QCOMPARE(broken.attemptStatus, std::string("done"));
        QCOMPARE(broken.attemptVerdict, std::string("correct"));
        QCOMPARE(broken.attemptMessage,
                 std::string("summary correct (refinement stopped: turn harness_error)"));
        QCOMPARE(*broken.speedupEager, 1.2);
    }

    void instrumentFailureWithoutEarlierResultFails() {
        engine::TurnTracker t;
        auto broken = turn("infra_error", std::nullopt, "failed");
        QVERIFY(!t.absorb(broken, true, turns(3)));
        QCOMPARE(broken.attemptStatus, std::string("failed"));
        QVERIFY(!t.best());
    }

    void bindingTiesTheRecordToItsAttempt() {
        db::EvaluationRecord r;
        engine::bindRecordToAttempt(r, 42, QStringLiteral("print(1)"));
        QCOMPARE(r.attemptId, db::Id(42));
        QCOMPARE(r.candidate.attemptId, db::Id(42));
        QCOMPARE(r.evaluation.attemptId, db::Id(42));
        QCOMPARE(r.candidate.code, std::string("print(1)"));
        QCOMPARE(r.candidate.codeHash.size(), size_t(64));
    }

    void slotMeterIntegratesBusySlots() {
        engine::SlotMeter m;
        QCOMPARE(m.busyFraction(1, 2), 0.0); // nothing measured yet
        // Two slots: one busy for the first second, both for the next.
        m.noteAt(0, 0);
        m.noteAt(1'000'000'000, 1);
        QCOMPARE(m.busyFractionAt(2'000'000'000, 2, 2), 0.75);
        QCOMPARE(m.busyFractionAt(0, 0, 2), 0.0);
        QCOMPARE(m.busyFractionAt(1'000'000'000, 1, 0), 0.0);
    }

    void progressCountsAndPace() {
        engine::RunProgress p;
        p.setStatusCounts(
            {{"queued", 3}, {"evaluating", 1}, {"done", 4}, {"failed", 1}, {"cancelled", 1}});
        QCOMPARE(p.total, 10);
        QCOMPARE(p.finished(), 6);
        QCOMPARE(p.queued, 3);
        QCOMPARE(p.evaluating, 1);
        p.setPace(60.0, 3);
        QCOMPARE(p.attemptsPerMinute, 3.0);
        QCOMPARE(*p.etaSeconds, 80.0); // 20 s per attempt, 4 left
        engine::RunProgress none;
        none.setPace(0.0, 0);
        QVERIFY(!none.etaSeconds);
        QCOMPARE(none.attemptsPerMinute, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestRunParts)
#include "tst_runparts.moc"
