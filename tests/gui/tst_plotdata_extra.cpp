// Cost vs score and turns vs speedup: the points computed from the fixture, the stored costs
// the snapshot carries, the empty state, and the two plots on the Plots page.

#include "data/plotdata.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "pages/plotspage.h"
#include "plots/costscoreplot.h"
#include "plots/plotexport.h"
#include "plots/turnsspeedupplot.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QTest>

using namespace kb;

namespace {

// Adds a priced turn to an attempt and refreshes its stored cost, as a provider call does.
void addPricedTurn(db::Connection& conn, db::Id attemptId, double costUsd) {
    db::RunRepository runs(conn);
    db::TurnRow turn;
    turn.attemptId = attemptId;
    turn.turnIndex = runs.nextTurnIndex(attemptId);
    turn.prompt = "The kernel is correct; make it faster.";
    turn.response = "```python\nclass ModelNew: ...\n```";
    turn.inputTokens = 100;
    turn.outputTokens = 50;
    turn.costUsd = costUsd;
    runs.addTurn(turn);
    runs.updateAttemptCost(attemptId);
}

QStringList itemTexts(const QCustomPlot* plot) {
    QStringList out;
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (const auto* text = qobject_cast<QCPItemText*>(plot->item(i)))
            out << text->text();
    }
    return out;
}

// The horizontal reference lines of a plot, by their height.
QList<double> levelLines(const QCustomPlot* plot) {
    QList<double> out;
    for (int i = 0; i < plot->itemCount(); ++i) {
        const auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i));
        if (line && line->point1->coords().y() == line->point2->coords().y())
            out << line->point1->coords().y();
    }
    return out;
}

} // namespace

class TestPlotDataExtra : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_snapshot = test::loadSnapshot(m_fixture.path()); }

    void costScoreFallsBackToTokens_data() {
        QTest::addColumn<int>("scope"); // 0 = every run, 1 = run 1, 2 = run 2
        QTest::addColumn<int>("measure");
        QTest::addColumn<QStringList>("models");
        QTest::addColumn<QList<double>>("tokens");
        QTest::addColumn<QList<double>>("scores");
        // Each evaluated attempt has one turn of 1200 + 800 tokens; queued ones have none.
        // Weighted overall (levels 1, 2, 3 weigh 100, 100, 50):
        //   demo-a pass 1, 0, 1 -> 0.6; fast_1 (2.0 and 0.5 of 2), 0, (1.25 of 1) -> 0.4
        //   demo-b pass 0, 1, 0 -> 0.4 (the 40x is suspicious); fast_1 0, 1, 0 -> 0.4
        QTest::newRow("run 1, pass rate")
            << 1 << int(gui::ScoreMeasure::PassRate)
            << QStringList{QStringLiteral("demo-a"), QStringLiteral("demo-b")}
            << QList<double>{8000, 8000} << QList<double>{0.6, 0.4};
        QTest::newRow("run 1, fast_1")
            << 1 << int(gui::ScoreMeasure::Fast1Eager)
            << QStringList{QStringLiteral("demo-a"), QStringLiteral("demo-b")}
            << QList<double>{8000, 8000} << QList<double>{0.4, 0.4};
        // run 2: demo-a on l1_relu (correct 2.5x) and l1_matmul (queued): 1 of 2 tasks.
        QTest::newRow("run 2, pass rate")
            << 2 << int(gui::ScoreMeasure::PassRate) << QStringList{QStringLiteral("demo-a")}
            << QList<double>{2000} << QList<double>{0.5};
        // every run: best of k per task, demo-a's tokens of both runs.
        QTest::newRow("all runs, pass rate")
            << 0 << int(gui::ScoreMeasure::PassRate)
            << QStringList{QStringLiteral("demo-a"), QStringLiteral("demo-b")}
            << QList<double>{10000, 8000} << QList<double>{0.6, 0.4};
    }

    void costScoreFallsBackToTokens() {
        QFETCH(int, scope);
        QFETCH(int, measure);
        QFETCH(QStringList, models);
        QFETCH(QList<double>, tokens);
        QFETCH(QList<double>, scores);
        const db::Id runs[] = {0, m_fixture.run1(), m_fixture.run2()};
        const auto data =
            gui::costScorePoints(*m_snapshot, runs[scope], static_cast<gui::ScoreMeasure>(measure));
        QVERIFY(!data.inUsd); // the fixture stores no cost
        QCOMPARE(data.points.size(), std::size_t(models.size()));
        for (qsizetype i = 0; i < models.size(); ++i) {
            const auto& point = data.points[std::size_t(i)];
            QCOMPARE(point.model, models[i]);
            QCOMPARE(point.spend, tokens[i]);
            QVERIFY2(std::abs(point.score - scores[i]) < 1e-12,
                     qPrintable(QString::number(point.score)));
        }
    }

    void costScoreInUsdOnceEveryModelHasACost() {
        test::GuiFixture fixture;
        {
            db::Database database(fixture.path().toStdString());
            addPricedTurn(database.connection(),
                          fixture.attempt(fixture.run1(), "demo-a", "l1_relu"), 0.5);
        }
        auto snapshot = test::loadSnapshot(fixture.path());
        QCOMPARE(snapshot->scope->attemptCostUsd.size(), std::size_t(1));
        // demo-b has no price yet: showing it at $0 would call it free, so tokens it is.
        auto data = gui::costScorePoints(*snapshot, fixture.run1(), gui::ScoreMeasure::PassRate);
        QVERIFY(!data.inUsd);
        QCOMPARE(data.points[0].spend, 8150.0);
        QCOMPARE(data.points[1].spend, 8000.0);

        {
            db::Database database(fixture.path().toStdString());
            addPricedTurn(database.connection(),
                          fixture.attempt(fixture.run1(), "demo-b", "l2_conv_bias"), 0.125);
            addPricedTurn(database.connection(),
                          fixture.attempt(fixture.run2(), "demo-a", "l1_relu"), 0.25);
            addPricedTurn(database.connection(),
                          fixture.attempt(fixture.run2(), "demo-a", "l1_relu"), 0.25);
        }
        snapshot = test::loadSnapshot(fixture.path());
        data = gui::costScorePoints(*snapshot, fixture.run1(), gui::ScoreMeasure::PassRate);
        QVERIFY(data.inUsd);
        QCOMPARE(data.points[0].model, QStringLiteral("demo-a"));
        QCOMPARE(data.points[0].spend, 0.5);
        QCOMPARE(data.points[1].spend, 0.125);
        data = gui::costScorePoints(*snapshot, 0, gui::ScoreMeasure::PassRate);
        QVERIFY(data.inUsd);
        QCOMPARE(data.points[0].spend, 1.0); // 0.5 in run 1, 0.25 + 0.25 in run 2
        QCOMPARE(data.points[1].spend, 0.125);

        // The extra turns count: run 2's l1_relu now took three.
        const auto turns = gui::turnsSpeedupPoints(*snapshot, fixture.run2());
        QCOMPARE(turns.points.size(), std::size_t(1));
        QCOMPARE(turns.points[0].turns, 3);
        QCOMPARE(turns.points[0].speedup, 2.5);
    }

    void turnsSpeedupPoints() {
        // run 2 is multi-turn: l1_relu correct at 2.5x after one turn, l1_matmul still queued.
        auto data = gui::turnsSpeedupPoints(*m_snapshot, m_fixture.run2());
        QCOMPARE(data.attempts, 2);
        QCOMPARE(data.points.size(), std::size_t(1));
        QCOMPARE(data.points[0].model, QStringLiteral("demo-a"));
        QCOMPARE(data.points[0].taskKey, QStringLiteral("l1_relu"));
        QCOMPARE(data.points[0].attemptId,
                 m_fixture.attempt(m_fixture.run2(), "demo-a", "l1_relu"));
        QCOMPARE(data.points[0].turns, 1);
        QCOMPARE(data.points[0].speedup, 2.5);
        // every run: the same single point; run 1's one-shot attempts never count.
        data = gui::turnsSpeedupPoints(*m_snapshot, 0);
        QCOMPARE(data.attempts, 2);
        QCOMPARE(data.points.size(), std::size_t(1));
        // run 1 is one-shot only: the empty state.
        data = gui::turnsSpeedupPoints(*m_snapshot, m_fixture.run1());
        QCOMPARE(data.attempts, 0);
        QVERIFY(data.points.empty());
    }

    void pageShowsBothPlots() {
        gui::PlotsPage page;
        page.resize(1200, 760);
        page.show();
        page.setSnapshot(m_snapshot, m_fixture.run1());
        QVERIFY(page.costScorePlot()->isVisible());
        QVERIFY(page.turnsSpeedupPlot()->isVisible());

        auto* cost = page.costScorePlot();
        QCOMPARE(cost->graphCount(), 2);
        QCOMPARE(cost->graph(0)->dataCount(), 1);
        QCOMPARE(cost->graph(0)->data()->at(0)->key, 8000.0);
        QCOMPARE(cost->graph(0)->data()->at(0)->value, 60.0);
        QCOMPARE(cost->graph(1)->data()->at(0)->value, 40.0);
        QVERIFY(cost->xAxis->label().contains(QStringLiteral("tokens")));
        QCOMPARE(itemTexts(cost),
                 (QStringList{QStringLiteral("demo-a"), QStringLiteral("demo-b")}));
        QVERIFY(cost->emptyText().isEmpty());
        cost->setMeasure(gui::ScoreMeasure::Fast1Eager);
        QCOMPARE(cost->graph(0)->data()->at(0)->value, 40.0);
        QVERIFY(cost->yAxis->label().contains(QStringLiteral("fast_1")));

        auto* turns = page.turnsSpeedupPlot();
        QCOMPARE(turns->graphCount(), 0);
        QCOMPARE(turns->emptyText(),
                 QStringLiteral("no multi-turn or agent attempts in this scope"));
        QVERIFY(itemTexts(turns).contains(turns->emptyText()));
        QVERIFY(levelLines(turns).isEmpty());

        page.setSnapshot(m_snapshot, m_fixture.run2());
        QCOMPARE(turns->graphCount(), 1);
        QCOMPARE(turns->graph(0)->dataCount(), 1);
        QCOMPARE(turns->graph(0)->data()->at(0)->key, 1.0);
        QCOMPARE(turns->graph(0)->data()->at(0)->value, 2.5);
        QCOMPARE(turns->yAxis->scaleType(), QCPAxis::stLogarithmic);
        QVERIFY(turns->yAxis->range().contains(1.0));
        QVERIFY(turns->emptyText().isEmpty());
        QVERIFY(itemTexts(turns).isEmpty());
        QCOMPARE(levelLines(turns), QList<double>{1.0});
        QCOMPARE(cost->graphCount(), 1);

        page.setSnapshot(nullptr, 0);
        QCOMPARE(cost->graphCount(), 0);
        QCOMPARE(cost->emptyText(), QStringLiteral("no models in this scope"));
        QCOMPARE(turns->graphCount(), 0);
    }

    void scoreChoiceIsKept() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("plots.ini")), QSettings::IniFormat);
        {
            gui::PlotsPage page;
            QComboBox* score = nullptr;
            for (auto* box : page.findChildren<QComboBox*>()) {
                if (box->findText(QStringLiteral("fast_1 vs eager")) >= 0)
                    score = box;
            }
            QVERIFY(score);
            score->setCurrentIndex(score->findText(QStringLiteral("fast_1 vs eager")));
            page.saveState(settings);
        }
        gui::PlotsPage page;
        QCOMPARE(page.costScorePlot()->measure(), gui::ScoreMeasure::PassRate);
        page.restoreState(settings);
        QCOMPARE(page.costScorePlot()->measure(), gui::ScoreMeasure::Fast1Eager);
    }

    void exports_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("magic");
        QTest::newRow("png") << "plot.png" << QByteArray("\x89PNG");
        QTest::newRow("svg") << "plot.svg" << QByteArray("<?xml");
        QTest::newRow("pdf") << "plot.pdf" << QByteArray("%PDF");
    }

    void exports() {
        QFETCH(QString, file);
        QFETCH(QByteArray, magic);
        gui::CostScorePlot cost;
        cost.setSnapshot(m_snapshot, m_fixture.run1());
        gui::TurnsSpeedupPlot turns;
        turns.setSnapshot(m_snapshot, m_fixture.run1());
        QTemporaryDir dir;
        const std::pair<QCustomPlot*, QByteArray> plots[] = {
            {&cost, "demo-b"}, {&turns, "no multi-turn or agent attempts"}};
        for (const auto& [plot, text] : plots) {
            const QString path = dir.filePath(QString::fromUtf8(text.left(6)) + file);
            const QString error = gui::exportPlot(plot, path, 640, 400);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray content = f.readAll();
            QVERIFY2(content.startsWith(magic), content.left(64).constData());
            if (file.endsWith(QLatin1String(".png")))
                QCOMPARE(QImage(path).size(), QSize(640, 400));
            if (file.endsWith(QLatin1String(".svg")))
                QVERIFY(content.contains(text)); // point labels and the empty state are real text
        }
    }

private:
    test::GuiFixture m_fixture;
    gui::SnapshotPtr m_snapshot;
};

QTEST_MAIN(TestPlotDataExtra)
#include "tst_plotdata_extra.moc"
