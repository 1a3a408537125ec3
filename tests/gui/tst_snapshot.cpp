// Snapshots: what a database read yields, readable errors, and the background loader's
// stale-result guard.

#include "data/jobtracker.h"
#include "data/scopecache.h"
#include "data/snapshotloader.h"
#include "db/database.h"
#include "guifixture.h"
#include "guitesthelpers.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace kb;

class TestSnapshot : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsRunsAttemptsAndLeaderboards() {
        test::GuiFixture fixture;
        const auto s = test::loadSnapshot(fixture.path());
        QCOMPARE(s->databasePath, fixture.path());
        QVERIFY(s->schemaVersion >= 1);
        QCOMPARE(s->runs.size(), std::size_t(2));
        QCOMPARE(s->attemptCount(), std::int64_t(10));
        QVERIFY(s->scope && s->scope->everyRun);
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

    void largeDatabasesAreReadOneScopeAtATime() {
        test::GuiFixture fixture;
        gui::ScopeRequest request; // wholeReadLimit 0: the fixture counts as large
        request.wanted = fixture.run1();
        const auto result = gui::loadSnapshotFile(fixture.path(), request);
        QVERIFY2(result.snapshot, qPrintable(result.error));
        const auto& s = *result.snapshot;
        QVERIFY(s.scope && !s.scope->everyRun);
        QCOMPARE(s.scope->runId, fixture.run1());
        QVERIFY(s.hasScope(fixture.run1()));
        QVERIFY(!s.hasScope(fixture.run2()));
        QCOMPARE(s.attemptsOf(fixture.run1()).size(), std::size_t(8));
        QVERIFY(s.attemptsOf(fixture.run2()).empty());
        QVERIFY(s.leaderboard(fixture.run1()));
        QVERIFY(!s.leaderboard(fixture.run2()));
        // The summaries still cover every run, from SQL alone.
        QCOMPARE(s.attemptCount(), std::int64_t(10));
        const gui::RunSummary* run1 = s.findRun(fixture.run1());
        QCOMPARE(run1->correct, 5);
        QCOMPARE(run1->suspicious, 1);
        QCOMPARE(run1->rejected, 1);
        QCOMPARE(s.findRun(fixture.run2())->queued, 1);
        QCOMPARE(s.modelNames(fixture.run1()),
                 (QStringList{QStringLiteral("demo-a"), QStringLiteral("demo-b")}));

        // An unknown run falls back on the newest; a cached scope of the same version is reused.
        request.wanted = 999;
        request.cached = {s.scope};
        const auto newest = gui::loadSnapshotFile(fixture.path(), request);
        QCOMPARE(newest.snapshot->scope->runId, fixture.run2());
        request.wanted = fixture.run1();
        const auto again = gui::loadSnapshotFile(fixture.path(), request);
        QCOMPARE(again.snapshot->scope.get(), s.scope.get());

        // A review changes the run's version, so the cached scope is read again.
        {
            db::Database database(fixture.path().toStdString());
            database.connection().exec(
                "UPDATE attempts SET review = 'accepted' WHERE suspicious <> 0");
        }
        const auto reviewed = gui::loadSnapshotFile(fixture.path(), request);
        QVERIFY(reviewed.snapshot->scope.get() != s.scope.get());
        QVERIFY(reviewed.snapshot->scopeVersion(fixture.run1()) != s.scopeVersion(fixture.run1()));
        QCOMPARE(reviewed.snapshot->scopeVersion(fixture.run2()), s.scopeVersion(fixture.run2()));
        QCOMPARE(reviewed.snapshot->findRun(fixture.run1())->suspicious, 0);

        // The same summaries with another scope's attempts.
        const auto every = test::loadSnapshot(fixture.path());
        QCOMPARE(s.withScope(every->scope).attemptsOf(0).size(), std::size_t(10));

        // A scope read alone lists its attempts in the order of a whole read (level, task,
        // model, sample): best-of-k ties depend on it.
        std::vector<db::Id> alone;
        std::vector<db::Id> whole;
        for (const auto* a : reviewed.snapshot->attemptsOf(fixture.run1()))
            alone.push_back(a->id);
        for (const auto* a : every->attemptsOf(fixture.run1()))
            whole.push_back(a->id);
        QCOMPARE(alone, whole);
    }

    void scopeCacheReadsInTheBackgroundAndKeepsWhatItRead() {
        test::GuiFixture fixture;
        const auto summaries = gui::loadSnapshotFile(fixture.path(), gui::ScopeRequest{}).snapshot;
        gui::ScopeCache cache;
        QSignalSpy ready(&cache, &gui::ScopeCache::ready);
        cache.setDatabase(fixture.path());
        const std::string version = summaries->scopeVersion(fixture.run1());
        QVERIFY(!cache.find(fixture.run1(), version));
        cache.request(fixture.run1(), version);
        cache.request(fixture.run1(), version); // already being read
        QVERIFY(cache.isLoading(fixture.run1()));
        QTRY_COMPARE_WITH_TIMEOUT(ready.size(), 1, 10000);
        QTest::qWait(100);
        QCOMPARE(ready.size(), 1);
        QVERIFY(!cache.isLoading());
        const auto data = cache.find(fixture.run1(), version);
        QVERIFY(data);
        QCOMPARE(data->attempts.size(), std::size_t(8));
        QVERIFY(!cache.find(fixture.run1(), "another version"));

        // Reading every run, then switching the database: the late result is dropped.
        cache.request(0, summaries->scopeVersion(0));
        cache.setDatabase(QStringLiteral("/nonexistent/other.kbdb"));
        QVERIFY(!cache.find(fixture.run1(), version));
        QTest::qWait(300);
        QCOMPARE(ready.size(), 1);
    }

    void emptyDatabaseHasNoRuns() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("empty.kbdb"));
        test::GuiFixture::writeEmpty(path);
        const auto result = gui::loadSnapshotFile(path);
        QVERIFY2(result.snapshot, qPrintable(result.error));
        QVERIFY(!result.snapshot->hasRuns());
        QVERIFY(!result.snapshot->leaderboard(0));
    }

    void errorsAreReadable_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("missing");
        QTest::newRow("missing") << "missing"
                                 << "does not exist" << true;
        QTest::newRow("folder") << "folder"
                                << "is a folder" << false;
        QTest::newRow("garbage") << "garbage"
                                 << "Cannot read the database" << false;
        QTest::newRow("too new") << "toonew"
                                 << "newer version" << false;
    }

    void errorsAreReadable() {
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

    void loaderDeliversOnTheGuiThread() {
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

    void loaderReportsFailure() {
        gui::SnapshotLoader loader;
        QSignalSpy failed(&loader, &gui::SnapshotLoader::failed);
        loader.load(QStringLiteral("/nonexistent/folder/x.kbdb"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("/nonexistent/folder/x.kbdb"));
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("does not exist")));
        QCOMPARE(failed.at(0).at(2).toBool(), true);
    }

    void newerLoadWinsOverAnOlderOne() {
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

    void trackerDropsStaleAndOrphanedResults() {
        auto owner = std::make_unique<QObject>();
        gui::JobTracker tracker(owner.get());
        int delivered = 0;
        int value = 0;
        tracker.start(
            []() {
                QThread::msleep(100);
                return 1;
            },
            [&](int v) {
                ++delivered;
                value = v;
            });
        tracker.start([]() { return 2; },
                      [&](int v) {
                          ++delivered;
                          value = v;
                      });
        QTRY_COMPARE_WITH_TIMEOUT(delivered, 1, 5000);
        QTest::qWait(250);
        QCOMPARE(delivered, 1);
        QCOMPARE(value, 2);

        // A result whose owner is gone is dropped, not delivered to a dead object.
        auto other = std::make_unique<QObject>();
        auto otherTracker = std::make_unique<gui::JobTracker>(other.get());
        bool late = false;
        otherTracker->start(
            []() {
                QThread::msleep(50);
                return 3;
            },
            [&](int) { late = true; });
        other.reset();
        QTest::qWait(250);
        QVERIFY(!late);
    }
};

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
