// The attempt detail: its models (trials, timing, findings), what the page shows for fixture
// attempts, and accept/reject writing the review to the database.

#include "data/attemptdetailloader.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "db/sqlite.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/findingsmodel.h"
#include "models/timingsummarymodel.h"
#include "models/trialsmodel.h"
#include "pages/attemptdetailpage.h"
#include "plots/timingplot.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using namespace kb;

namespace {

gui::AttemptDetailPtr load(const QString& path, db::Id id) {
    auto result = gui::loadAttemptDetail(path, id);
    if (!result.detail)
        qFatal("%s", qPrintable(result.error));
    return result.detail;
}

db::AttemptRow reread(const QString& path, db::Id id) {
    db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
    return *db::RunRepository(database.connection()).attempt(id);
}

} // namespace

class TestAttemptDetail : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void modelsPassTheTester() {
        const auto correct =
            load(m_fixture.path(), m_fixture.attempt(m_fixture.run1(), "demo-a", "l1_relu"));
        const auto other =
            load(m_fixture.path(), m_fixture.attempt(m_fixture.run1(), "demo-b", "l3_mlp"));
        const auto empty = std::make_shared<const db::AttemptDetail>();
        gui::TrialsModel trials;
        gui::TimingSummaryModel timing;
        gui::FindingsModel findings;
        QAbstractItemModelTester t1(&trials,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&timing,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(&findings,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (const auto& detail : {correct, empty, other, gui::AttemptDetailPtr(), correct}) {
            trials.setSnapshot(detail);
            timing.setSnapshot(detail);
            findings.setSnapshot(detail);
        }
        QCOMPARE(trials.rowCount(), 5);
        QCOMPARE(trials.columnCount(), int(gui::TrialsModel::ColumnCount));
        QCOMPARE(timing.rowCount(), 3);
        QCOMPARE(findings.rowCount(), 0);
    }

    void trialsShowErrors() {
        gui::TrialsModel trials;
        trials.setSnapshot(
            load(m_fixture.path(), m_fixture.attempt(m_fixture.run1(), "demo-a", "l2_conv_bias")));
        QCOMPARE(trials.rowCount(), 5);
        QCOMPARE(test::text(&trials, 0, gui::TrialsModel::ResultColumn), QStringLiteral("passed"));
        QCOMPARE(test::text(&trials, 1, gui::TrialsModel::ResultColumn), QStringLiteral("failed"));
        QCOMPARE(trials.index(1, 0).data(gui::TrialsModel::PassedRole).toBool(), false);
        QCOMPARE(test::text(&trials, 1, gui::TrialsModel::MaxAbsErrorColumn),
                 QStringLiteral("0.032"));
        QCOMPARE(test::text(&trials, 1, gui::TrialsModel::MismatchColumn), QStringLiteral("25.0%"));
        QVERIFY(test::text(&trials, 1, gui::TrialsModel::MessageColumn)
                    .contains(QStringLiteral("atol")));
    }

    void timingAndFindings() {
        const auto detail =
            load(m_fixture.path(), m_fixture.attempt(m_fixture.run1(), "demo-b", "l1_relu"));
        gui::TimingSummaryModel timing;
        timing.setSnapshot(detail);
        QCOMPARE(timing.rowCount(), 3);
        QCOMPARE(test::text(&timing, 0, gui::TimingSummaryModel::SeriesColumn),
                 QStringLiteral("candidate"));
        QCOMPARE(test::text(&timing, 0, gui::TimingSummaryModel::SamplesColumn),
                 QStringLiteral("20"));
        QCOMPARE(test::text(&timing, 0, gui::TimingSummaryModel::MedianColumn),
                 QStringLiteral("25 µs")); // 1 ms / 40
        QCOMPARE(test::text(&timing, 1, gui::TimingSummaryModel::MedianColumn),
                 QStringLiteral("1 ms"));
        QCOMPARE(timing.index(1, gui::TimingSummaryModel::MedianColumn)
                     .data(gui::TimingSummaryModel::MillisecondsRole)
                     .toDouble(),
                 1.0);

        gui::FindingsModel findings;
        findings.setSnapshot(detail);
        QCOMPARE(findings.rowCount(), 2);
        QCOMPARE(test::text(&findings, 0, gui::FindingsModel::RuleColumn),
                 QStringLiteral("excessive-speedup"));
        QCOMPARE(test::text(&findings, 0, gui::FindingsModel::SeverityColumn),
                 QStringLiteral("suspicious"));
        QVERIFY(test::text(&findings, 0, gui::FindingsModel::MessageColumn)
                    .contains(QStringLiteral("40.0x")));
        QVERIFY(test::text(&findings, 0, gui::FindingsModel::ExplanationColumn)
                    .contains(QStringLiteral("plausibility")));
        QVERIFY(!test::text(&findings, 1, gui::FindingsModel::ExplanationColumn).isEmpty());
        QVERIFY(findings.index(0, 0).data(gui::FindingsModel::SortRole).toInt() >
                findings.index(1, 0).data(gui::FindingsModel::SortRole).toInt());
    }

    // A speedup measured with an interval shows it in the header; a noisy one says so.
    void headerShowsIntervalAndNoise() {
        test::GuiFixture fixture;
        const db::Id id = fixture.attempt(fixture.run1(), "demo-a", "l1_relu");
        {
            db::Database database(fixture.path().toStdString());
            db::Statement q(
                database.connection(),
                "INSERT INTO attempt_timing(attempt_id, speedup_eager_low, speedup_eager_high, "
                "noisy_eager, regime) VALUES (?, 1.7, 2.3, 1, 'launch-bound')");
            q.bind(1, id).exec();
        }
        gui::AttemptDetailPage page;
        page.setDatabasePath(fixture.path());
        QSignalSpy shown(&page, &gui::AttemptDetailPage::detailShown);
        page.showAttempt(id);
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);
        const QString header = page.headerText();
        QVERIFY2(header.contains(QStringLiteral("2.00× [1.70, 2.30] vs eager")),
                 qPrintable(header));
        QVERIFY2(header.contains(QStringLiteral("noisy timing")), qPrintable(header));
        QVERIFY2(header.contains(QStringLiteral("launch-bound")), qPrintable(header));
    }

    void pageShowsEverything() {
        gui::AttemptDetailPage page;
        page.setDatabasePath(m_fixture.path());
        QSignalSpy shown(&page, &gui::AttemptDetailPage::detailShown);
        const db::Id id = m_fixture.attempt(m_fixture.run1(), "demo-b", "l1_relu");
        page.showAttempt(id);
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);
        QCOMPARE(shown.at(0).at(0).toLongLong(), id);
        QCOMPARE(page.attemptId(), id);
        QVERIFY(page.headerText().contains(QStringLiteral("demo-b")));
        QVERIFY(page.headerText().contains(QStringLiteral("l1_relu")));
        QVERIFY(page.headerText().contains(QStringLiteral("40.0×")));
        QVERIFY(page.headerText().contains(QStringLiteral("suspicious")));
        QVERIFY(
            page.transcriptText().contains(QStringLiteral("Write a faster kernel for l1_relu")));
        QVERIFY(page.transcriptText().contains(QStringLiteral("Here is my kernel")));
        QVERIFY(page.codeText().contains(QStringLiteral("class ModelNew")));
        QVERIFY(page.buildLogText().contains(QStringLiteral("building extension")));
        QVERIFY(page.environmentText().contains(QStringLiteral("Fixture CPU")));
        QCOMPARE(page.trialsModel()->rowCount(), 5);
        QCOMPARE(page.timingModel()->rowCount(), 3);
        QCOMPARE(page.findingsModel()->rowCount(), 2);
        QCOMPARE(page.tabs()->tabText(gui::AttemptDetailPage::FindingsTab),
                 QStringLiteral("Findings (2)"));
        QVERIFY(page.timingPlot()->eagerMedianMarker());
        QCOMPARE(*page.timingPlot()->eagerMedianMarker(), 1.0);
        QCOMPARE(page.timingPlot()->graphCount(), 3);
        QVERIFY(page.acceptButton()->isVisibleTo(&page));
        QVERIFY(page.acceptButton()->isEnabled());
        QVERIFY(page.rejectButton()->isEnabled());

        // a build failure: build log, no trials, no timing, no review bar
        page.showAttempt(m_fixture.attempt(m_fixture.run1(), "demo-b", "l1_matmul"));
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 2, 10000);
        QVERIFY(page.buildLogText().contains(QStringLiteral("blockIdx")));
        QCOMPARE(page.trialsModel()->rowCount(), 0);
        QCOMPARE(page.timingModel()->rowCount(), 0);
        QVERIFY(!page.timingPlot()->eagerMedianMarker());
        QVERIFY(!page.acceptButton()->isVisibleTo(&page));
    }

    void unknownAttemptIsAReadableError() {
        gui::AttemptDetailPage page;
        page.setDatabasePath(m_fixture.path());
        page.showAttempt(424242);
        QTRY_VERIFY_WITH_TIMEOUT(page.headerText().contains(QStringLiteral("not in the database")),
                                 10000);
        QVERIFY(!page.detail());
    }

    void acceptAndRejectWriteTheReview() {
        test::GuiFixture fixture;
        const db::Id id = fixture.attempt(fixture.run1(), "demo-b", "l1_relu");
        gui::AttemptDetailPage page;
        page.setDatabasePath(fixture.path());
        QSignalSpy shown(&page, &gui::AttemptDetailPage::detailShown);
        QSignalSpy written(&page, &gui::AttemptDetailPage::reviewWritten);
        page.showAttempt(id);
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);

        page.noteEdit()->setText(QStringLiteral("kernel verified by hand"));
        QTest::mouseClick(page.acceptButton(), Qt::LeftButton);
        QCOMPARE(written.size(), 1);
        QCOMPARE(written.at(0).at(0).toLongLong(), id);
        db::AttemptRow row = reread(fixture.path(), id);
        QCOMPARE(row.review, std::string("accepted"));
        QCOMPARE(row.reviewNote, std::string("kernel verified by hand"));
        // the page refreshes from the database
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 2, 10000);
        QCOMPARE(page.detail()->attempt.review, std::string("accepted"));
        QVERIFY(!page.acceptButton()->isEnabled());
        QVERIFY(page.rejectButton()->isEnabled());
        QVERIFY(page.clearReviewButton()->isEnabled());
        QVERIFY(page.reviewStatusText().contains(QStringLiteral("accepted")));

        page.noteEdit()->setText(QStringLiteral("on second thought: cached output"));
        QTest::mouseClick(page.rejectButton(), Qt::LeftButton);
        row = reread(fixture.path(), id);
        QCOMPARE(row.review, std::string("rejected"));
        QCOMPARE(row.reviewNote, std::string("on second thought: cached output"));
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 3, 10000);

        QVERIFY(page.review(gui::Review::None));
        QCOMPARE(reread(fixture.path(), id).review, std::string("none"));
    }

    void reviewOnAnUnwritableDatabaseSaysWhy() {
        test::GuiFixture fixture;
        const db::Id id = fixture.attempt(fixture.run1(), "demo-b", "l1_relu");
        gui::AttemptDetailPage page;
        page.setDatabasePath(fixture.path());
        QSignalSpy shown(&page, &gui::AttemptDetailPage::detailShown);
        page.showAttempt(id);
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);
        // the file disappears behind the page's back
        QVERIFY(QFile::remove(fixture.path()));
        QFile::remove(fixture.path() + QStringLiteral("-wal"));
        QFile::remove(fixture.path() + QStringLiteral("-shm"));
        QVERIFY(QFile(fixture.path()).open(QIODevice::WriteOnly)); // now an empty file, not our DB
        QVERIFY(!page.review(gui::Review::Accepted));
        QVERIFY2(page.reviewStatusText().contains(QStringLiteral("attempt"), Qt::CaseInsensitive),
                 qPrintable(page.reviewStatusText()));
    }

private:
    test::GuiFixture m_fixture;
};

QTEST_MAIN(TestAttemptDetail)
#include "tst_attemptdetail.moc"
