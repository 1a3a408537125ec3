#include "db/records.h"
#include "db/statussql.h"
#include "dbfixture.h"

#include <QTest>

using namespace kb::db;

Q_DECLARE_METATYPE(kb::db::RunStatus)
Q_DECLARE_METATYPE(kb::db::AttemptStatus)

class TestStatus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runStatusNames_data() {
        QTest::addColumn<RunStatus>("status");
        QTest::addColumn<QString>("name");
        QTest::newRow("created") << RunStatus::Created << QStringLiteral("created");
        QTest::newRow("running") << RunStatus::Running << QStringLiteral("running");
        QTest::newRow("paused") << RunStatus::Paused << QStringLiteral("paused");
        QTest::newRow("finished") << RunStatus::Finished << QStringLiteral("finished");
        QTest::newRow("failed") << RunStatus::Failed << QStringLiteral("failed");
        QTest::newRow("cancelled") << RunStatus::Cancelled << QStringLiteral("cancelled");
    }
    void runStatusNames() {
        QFETCH(RunStatus, status);
        QFETCH(QString, name);
        QCOMPARE(QString::fromLatin1(toString(status)), name);
        QCOMPARE(parseRunStatus(name.toStdString()), std::optional<RunStatus>(status));
        QCOMPARE(runStatusFromString(name.toStdString()), status);
    }

    void attemptStatusNames_data() {
        QTest::addColumn<AttemptStatus>("status");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("pending");
        QTest::addColumn<bool>("finished");
        QTest::newRow("queued") << AttemptStatus::Queued << QStringLiteral("queued") << true
                                << false;
        QTest::newRow("generating")
            << AttemptStatus::Generating << QStringLiteral("generating") << true << false;
        QTest::newRow("building") << AttemptStatus::Building << QStringLiteral("building") << true
                                  << false;
        QTest::newRow("evaluating")
            << AttemptStatus::Evaluating << QStringLiteral("evaluating") << true << false;
        QTest::newRow("done") << AttemptStatus::Done << QStringLiteral("done") << false << true;
        QTest::newRow("failed") << AttemptStatus::Failed << QStringLiteral("failed") << false
                                << true;
        QTest::newRow("cancelled")
            << AttemptStatus::Cancelled << QStringLiteral("cancelled") << false << true;
    }
    void attemptStatusNames() {
        QFETCH(AttemptStatus, status);
        QFETCH(QString, name);
        QFETCH(bool, pending);
        QFETCH(bool, finished);
        QCOMPARE(QString::fromLatin1(toString(status)), name);
        QCOMPARE(parseAttemptStatus(name.toStdString()), std::optional<AttemptStatus>(status));
        QCOMPARE(attemptStatusFromString(name.toStdString()), status);
        QCOMPARE(isPending(status), pending);
        QCOMPARE(isFinished(status), finished);
        QCOMPARE(isActive(status), pending && status != AttemptStatus::Queued);
    }

    void liveRuns() {
        QVERIFY(isLive(RunStatus::Created));
        QVERIFY(isLive(RunStatus::Running));
        QVERIFY(isLive(RunStatus::Paused));
        QVERIFY(!isLive(RunStatus::Finished));
        QVERIFY(!isLive(RunStatus::Failed));
        QVERIFY(!isLive(RunStatus::Cancelled));
    }

    // A name this program does not know (a newer program's, a damaged row) maps to the fallback.
    void unknownNamesFallBack_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("empty") << QString();
        QTest::newRow("upper case") << QStringLiteral("RUNNING");
        QTest::newRow("padded") << QStringLiteral(" done");
        QTest::newRow("newer") << QStringLiteral("archived");
        QTest::newRow("verdict") << QStringLiteral("correct");
    }
    void unknownNamesFallBack() {
        QFETCH(QString, name);
        const std::string n = name.toStdString();
        QVERIFY(!parseRunStatus(n));
        QVERIFY(!parseAttemptStatus(n));
        QCOMPARE(runStatusFromString(n), kUnknownRunStatus);
        QCOMPARE(attemptStatusFromString(n), kUnknownAttemptStatus);
        QVERIFY(!isLive(runStatusFromString(n)));
        QVERIFY(!isPending(attemptStatusFromString(n)));
    }

    // A value cast from an integer out of range still has a name (the fallback's), never UB.
    void outOfRangeValuesHaveTheFallbackName() {
        QCOMPARE(QString::fromLatin1(toString(static_cast<RunStatus>(99))),
                 QString::fromLatin1(toString(kUnknownRunStatus)));
        QCOMPARE(QString::fromLatin1(toString(static_cast<AttemptStatus>(-1))),
                 QString::fromLatin1(toString(kUnknownAttemptStatus)));
    }

    void sqlTextOfTheNames() {
        QCOMPARE(sqlLiteral(AttemptStatus::Queued), std::string("'queued'"));
        QCOMPARE(sqlLiteral(RunStatus::Running), std::string("'running'"));
        QCOMPARE(sqlList({RunStatus::Created, RunStatus::Running}),
                 std::string("('created','running')"));
        QCOMPARE(sqlActiveAttemptStatuses(), std::string("('generating','building','evaluating')"));
        QCOMPARE(sqlPendingAttemptStatuses(),
                 std::string("('queued','generating','building','evaluating')"));
    }

    // Every name is one the schema accepts, and rows read back convert to the values.
    void namesAreTheStoredOnes() {
        kb::test::DbFixture f;
        const Id run = f.createRun();
        RunRepository runs(f.database.connection());
        QCOMPARE(runs.run(run)->runStatus(), RunStatus::Created);
        QCOMPARE(runs.attempts(run).front().attemptStatus(), AttemptStatus::Queued);
        const Id attempt = runs.queuedAttemptIds(run).front();
        for (AttemptStatus s :
             {AttemptStatus::Generating, AttemptStatus::Building, AttemptStatus::Evaluating,
              AttemptStatus::Done, AttemptStatus::Failed, AttemptStatus::Cancelled,
              AttemptStatus::Queued}) {
            runs.setAttemptStatus(attempt, toString(s));
            QCOMPARE(runs.attempt(attempt)->attemptStatus(), s);
        }
        for (RunStatus s : {RunStatus::Running, RunStatus::Paused, RunStatus::Failed,
                            RunStatus::Cancelled, RunStatus::Created}) {
            runs.setRunStatus(run, toString(s));
            QCOMPARE(runs.run(run)->runStatus(), s);
        }
        // A row's defaults are the stored defaults.
        QCOMPARE(RunRow().runStatus(), RunStatus::Created);
        QCOMPARE(AttemptRow().attemptStatus(), AttemptStatus::Queued);
        QCOMPARE(EvaluationRecord().attemptStatus, std::string("done"));
    }
};

QTEST_GUILESS_MAIN(TestStatus)
#include "tst_status.moc"
