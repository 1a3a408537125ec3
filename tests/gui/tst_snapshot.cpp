// Snapshots: what a database read yields, readable errors, and the background loader's
// stale-result guard.

#include "guifixture.h"
#include "guitesthelpers.h"

#include "data/jobtracker.h"
#include "data/snapshotloader.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace kb;

class TestSnapshot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsRunsAttemptsAndLeaderboards()
    {
        test::GuiFixture fixture;
        const auto s = test::loadSnapshot(fixture.path());
        QCOMPARE(s->databasePath, fixture.path());
        QVERIFY(s->schemaVersion >= 1);
        QCOMPARE(s->runs.size(), std::size_t(2));
        QCOMPARE(s->attempts.size(), std::size_t(10));
        QCOMPARE(s->attemptsOf(fixture.run1()).size(), std::size_t(8));
        QCOMPARE(s->attemptsOf(fixture.run2()).size(), std::size_t(2));
        QCOMPARE(s->attemptsOf(0).size(), std::size_t(10));

        const gui::RunSummary* run1 = s->findRun(fixture.run1());
        QVERIFY(run1);
        QCOMPARE(run1->run.status, std::string("finished"));
        QCOMPARE(run1->attempts, 8);
        QCOMPARE(run1->finished, 8);
        QCOMPARE(run1->queued, 0);
        QCOMPARE(run1->correct, 5); // relu a+b, matmul a, conv b, mlp a
        QCOMPARE(run1->suspicious, 1);
        QCOMPARE(run1->rejected, 1);

        const gui::RunSummary* run2 = s->findRun(fixture.run2());
        QCOMPARE(run2->finished, 1);
        QCOMPARE(run2->queued, 1);
        QCOMPARE(run2->run.mode, std::string("multi-turn"));

        QVERIFY(s->leaderboard(fixture.run1()));
        QVERIFY(s->leaderboard(fixture.run2()));
        QVERIFY(s->leaderboard(0));
        QVERIFY(!s->leaderboard(999));
        QVERIFY(s->findAttempt(fixture.attempt(fixture.run1(), "demo-b", "l1_relu")));
    }

    void emptyDatabaseHasNoRuns()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("empty.kbdb"));
        test::GuiFixture::writeEmpty(path);
        const auto result = gui::loadSnapshotFile(path);
        QVERIFY2(result.snapshot, qPrintable(result.error));
        QVERIFY(!result.snapshot->hasRuns());
        QVERIFY(result.snapshot->leaderboards.empty());
    }

    void errorsAreReadable_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("missing");
        QTest::newRow("missing") << "missing" << "does not exist" << true;
        QTest::newRow("folder") << "folder" << "is a folder" << false;
        QTest::newRow("garbage") << "garbage" << "Cannot read the database" << false;
        QTest::newRow("too new") << "toonew" << "newer version" << false;
    }

    void errorsAreReadable()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QFETCH(bool, missing);
        QTemporaryDir dir;
        QString path = dir.filePath(QStringLiteral("db.kbdb"));
        if (kind == QLatin1String("folder")) {
            path = dir.path();
        } else if (kind == QLatin1String("garbage")) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(4096, 'x'));
        } else if (kind == QLatin1String("toonew")) {
            test::GuiFixture::writeTooNew(path);
        }
        const auto result = gui::loadSnapshotFile(path);
        QVERIFY(!result.snapshot);
        QVERIFY2(result.error.contains(expected), qPrintable(result.error));
        QCOMPARE(result.missingFile, missing);
    }

    void loaderDeliversOnTheGuiThread()
    {
        test::GuiFixture fixture;
        gui::SnapshotLoader loader;
        QSignalSpy loaded(&loader, &gui::SnapshotLoader::loaded);
        QSignalSpy failed(&loader, &gui::SnapshotLoader::failed);
        loader.load(fixture.path());
        QVERIFY(loader.isLoading());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 10000);
        QCOMPARE(failed.size(), 0);
        QVERIFY(!loader.isLoading());
        const auto snapshot = loaded.at(0).at(0).value<gui::SnapshotPtr>();
        QCOMPARE(snapshot->runs.size(), std::size_t(2));
    }

    void loaderReportsFailure()
    {
        gui::SnapshotLoader loader;
        QSignalSpy failed(&loader, &gui::SnapshotLoader::failed);
        loader.load(QStringLiteral("/nonexistent/folder/x.kbdb"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("/nonexistent/folder/x.kbdb"));
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("does not exist")));
        QCOMPARE(failed.at(0).at(2).toBool(), true);
    }

    void newerLoadWinsOverAnOlderOne()
    {
        test::GuiFixture first;
        QTemporaryDir dir;
        const QString empty = dir.filePath(QStringLiteral("empty.kbdb"));
        test::GuiFixture::writeEmpty(empty);
        gui::SnapshotLoader loader;
        QSignalSpy loaded(&loader, &gui::SnapshotLoader::loaded);
        loader.load(first.path());
        loader.load(empty); // supersedes the first
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 10000);
        QTest::qWait(200); // the superseded result must not arrive late either
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(loaded.at(0).at(0).value<gui::SnapshotPtr>()->databasePath, empty);
    }

    void trackerDropsStaleAndOrphanedResults()
    {
        auto owner = std::make_unique<QObject>();
        gui::JobTracker tracker(owner.get());
        int delivered = 0;
        int value = 0;
        tracker.start([]() { QThread::msleep(100); return 1; }, [&](int v) { ++delivered; value = v; });
        tracker.start([]() { return 2; }, [&](int v) { ++delivered; value = v; });
        QTRY_COMPARE_WITH_TIMEOUT(delivered, 1, 5000);
        QTest::qWait(250);
        QCOMPARE(delivered, 1);
        QCOMPARE(value, 2);

        // A result whose owner is gone is dropped, not delivered to a dead object.
        auto other = std::make_unique<QObject>();
        auto otherTracker = std::make_unique<gui::JobTracker>(other.get());
        bool late = false;
        otherTracker->start([]() { QThread::msleep(50); return 3; }, [&](int) { late = true; });
        other.reset();
        QTest::qWait(250);
        QVERIFY(!late);
    }
};

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
