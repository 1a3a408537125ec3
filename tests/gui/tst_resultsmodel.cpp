// The tasks x models grid: content, colour and the best-of-k choice, for known fixture data.

#include "data/cellstyle.h"
#include "db/database.h"
#include "db/sqlite.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "models/resultsmodel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QColor>
#include <QTest>

using namespace kb;
using gui::CellKind;
using gui::ResultsModel;

class TestResultsModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_snapshot = test::loadSnapshot(m_fixture.path()); }

    void passesTheModelTester() {
        ResultsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(ResultsModel::ColumnCount));
        model.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), ResultsModel::ColumnCount + 2);
        model.setSnapshot(m_snapshot, m_fixture.run2());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), ResultsModel::ColumnCount + 1);
        model.setSnapshot(std::make_shared<const gui::Snapshot>(), 0);
        QCOMPARE(model.rowCount(), 0);
        model.setSnapshot(m_snapshot, 0);
        QCOMPARE(model.rowCount(), 4);
    }

    void rowsAreTasksByLevelColumnsAreModels() {
        ResultsModel model;
        model.setSnapshot(m_snapshot, m_fixture.run1());
        QCOMPARE(model.models(), (QStringList{QStringLiteral("demo-a"), QStringLiteral("demo-b")}));
        QCOMPARE(model.levels(), (QList<int>{1, 2, 3}));
        const QStringList keys = {QStringLiteral("l1_matmul"), QStringLiteral("l1_relu"),
                                  QStringLiteral("l2_conv_bias"), QStringLiteral("l3_mlp")};
        for (int row = 0; row < keys.size(); ++row)
            QCOMPARE(test::text(&model, row, ResultsModel::TaskColumn), keys[row]);
        QCOMPARE(test::text(&model, 0, ResultsModel::LevelColumn), QStringLiteral("L1"));
        QCOMPARE(test::text(&model, 2, ResultsModel::LevelColumn), QStringLiteral("L2"));
        QCOMPARE(model.headerData(ResultsModel::ColumnCount, Qt::Horizontal).toString(),
                 QStringLiteral("demo-a"));
        QCOMPARE(model.index(1, ResultsModel::TaskColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("l1_relu: ReLU"));
    }

    void cells_data() {
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("verdict");
        QTest::newRow("a relu faster") << "l1_relu"
                                       << "demo-a"
                                       << "2.00×" << int(CellKind::Faster) << "correct";
        QTest::newRow("a matmul slower") << "l1_matmul"
                                         << "demo-a"
                                         << "0.500×" << int(CellKind::Slower) << "correct";
        QTest::newRow("a conv incorrect") << "l2_conv_bias"
                                          << "demo-a"
                                          << "incorrect" << int(CellKind::Incorrect) << "incorrect";
        QTest::newRow("a mlp faster") << "l3_mlp"
                                      << "demo-a"
                                      << "1.25×" << int(CellKind::Faster) << "correct";
        QTest::newRow("b relu suspicious") << "l1_relu"
                                           << "demo-b"
                                           << "⚠ 40.0×" << int(CellKind::Suspicious) << "correct";
        QTest::newRow("b matmul build") << "l1_matmul"
                                        << "demo-b"
                                        << "build error" << int(CellKind::Failed) << "build_error";
        QTest::newRow("b conv faster") << "l2_conv_bias"
                                       << "demo-b"
                                       << "1.10×" << int(CellKind::Faster) << "correct";
        QTest::newRow("b mlp rejected") << "l3_mlp"
                                        << "demo-b"
                                        << "rejected" << int(CellKind::Rejected) << "rejected";
    }

    void cells() {
        QFETCH(QString, task);
        QFETCH(QString, model);
        QFETCH(QString, text);
        QFETCH(int, kind);
        QFETCH(QString, verdict);
        ResultsModel m;
        m.setSnapshot(m_snapshot, m_fixture.run1());
        const QModelIndex cell = m.index(m.rowOfTask(task), m.columnOfModel(model));
        QVERIFY(cell.isValid());
        QCOMPARE(cell.data().toString(), text);
        QCOMPARE(cell.data(ResultsModel::CellKindRole).toInt(), kind);
        QCOMPARE(cell.data(ResultsModel::VerdictRole).toString(), verdict);
        QCOMPARE(cell.data(ResultsModel::AttemptIdRole).toLongLong(),
                 m_fixture.attempt(m_fixture.run1(), model.toStdString(), task.toStdString()));
        QCOMPARE(cell.data(ResultsModel::ModelNameRole).toString(), model);
        QVERIFY(cell.data(Qt::ToolTipRole)
                    .toString()
                    .contains(verdict.replace(QLatin1Char('_'), QLatin1Char(' '))));
    }

    void colourFollowsVerdictAndLogSpeedup() {
        ResultsModel m;
        m.setSnapshot(m_snapshot, m_fixture.run1());
        auto colour = [&](const char* task, const char* model) {
            return m
                .index(m.rowOfTask(QString::fromLatin1(task)),
                       m.columnOfModel(QString::fromLatin1(model)))
                .data(Qt::BackgroundRole)
                .value<QColor>();
        };
        const QColor base = QApplication::palette().color(QPalette::Base);
        const QColor faster = colour("l1_relu", "demo-a");          // 2.00x
        const QColor fasterLess = colour("l2_conv_bias", "demo-b"); // 1.10x
        const QColor slower = colour("l1_matmul", "demo-a");        // 0.50x
        const QColor incorrect = colour("l2_conv_bias", "demo-a");
        // green for faster, orange for slower, red for incorrect
        QVERIFY2(faster.green() > faster.red() && faster.green() > faster.blue(),
                 qPrintable(faster.name()));
        QVERIFY2(slower.red() > slower.blue() && slower.green() > slower.blue(),
                 qPrintable(slower.name()));
        QVERIFY2(incorrect.red() > incorrect.green() && incorrect.red() > incorrect.blue(),
                 qPrintable(incorrect.name()));
        // further from 1x on the log scale = further from the base colour
        auto distance = [&](const QColor& c) {
            return std::abs(c.redF() - base.redF()) + std::abs(c.greenF() - base.greenF()) +
                   std::abs(c.blueF() - base.blueF());
        };
        QVERIFY(distance(faster) > distance(fasterLess));
        // log scale: 2x and 1/2x are equally far from 1x
        QVERIFY(std::abs(
                    distance(gui::cellBackground(CellKind::Faster, 2.0, QApplication::palette())) -
                    distance(gui::cellBackground(CellKind::Slower, 0.5, QApplication::palette()))) <
                0.3);
    }

    void coloursFollowADarkPalette() {
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        for (CellKind kind :
             {CellKind::Faster, CellKind::Slower, CellKind::Incorrect, CellKind::Failed,
              CellKind::Rejected, CellKind::Suspicious, CellKind::Pending}) {
            const QColor c = gui::cellBackground(kind, kind == CellKind::Slower ? 0.5 : 2.0, dark);
            // stays dark enough for the palette's light text
            QVERIFY2(c.lightnessF() < 0.55, qPrintable(c.name()));
        }
    }

    void allRunsCombinesSamplesAndShowsTheBest() {
        ResultsModel m;
        m.setSnapshot(m_snapshot, 0);
        const QModelIndex relu = m.index(m.rowOfTask(QStringLiteral("l1_relu")),
                                         m.columnOfModel(QStringLiteral("demo-a")));
        QCOMPARE(relu.data(ResultsModel::SampleCountRole).toInt(), 2);
        QCOMPARE(relu.data().toString(), QStringLiteral("2.50×  (2/2)"));
        QCOMPARE(relu.data(ResultsModel::AttemptIdRole).toLongLong(),
                 m_fixture.attempt(m_fixture.run2(), "demo-a", "l1_relu"));
        QCOMPARE(relu.data(ResultsModel::SpeedupRole).toDouble(), 2.5);
        const QModelIndex matmul = m.index(m.rowOfTask(QStringLiteral("l1_matmul")),
                                           m.columnOfModel(QStringLiteral("demo-a")));
        QCOMPARE(matmul.data().toString(), QStringLiteral("0.500×  (1/2)"));

        ResultsModel run2;
        run2.setSnapshot(m_snapshot, m_fixture.run2());
        const QModelIndex pending = run2.index(run2.rowOfTask(QStringLiteral("l1_matmul")),
                                               run2.columnOfModel(QStringLiteral("demo-a")));
        QCOMPARE(pending.data(ResultsModel::CellKindRole).toInt(), int(CellKind::Pending));
        QCOMPARE(pending.data().toString(), QStringLiteral("pending"));
    }

    void sortRoleRanksFasterAboveFailed() {
        ResultsModel m;
        m.setSnapshot(m_snapshot, m_fixture.run1());
        const int b = m.columnOfModel(QStringLiteral("demo-b"));
        const double conv = m.index(m.rowOfTask(QStringLiteral("l2_conv_bias")), b)
                                .data(ResultsModel::SortRole)
                                .toDouble();
        const double suspicious = m.index(m.rowOfTask(QStringLiteral("l1_relu")), b)
                                      .data(ResultsModel::SortRole)
                                      .toDouble();
        const double build = m.index(m.rowOfTask(QStringLiteral("l1_matmul")), b)
                                 .data(ResultsModel::SortRole)
                                 .toDouble();
        const double rejected = m.index(m.rowOfTask(QStringLiteral("l3_mlp")), b)
                                    .data(ResultsModel::SortRole)
                                    .toDouble();
        QVERIFY(conv > suspicious);
        QVERIFY(suspicious > build);
        QVERIFY(build > rejected);
    }

    // An attempt measured with an interval shows it; a noisy one is marked, in the cell and in
    // its tool tip.
    void intervalsAndNoisyTiming_data() {
        QTest::addColumn<bool>("noisy");
        QTest::addColumn<QString>("regime");
        QTest::addColumn<QString>("text");
        QTest::newRow("tight") << false << QStringLiteral("device-bound")
                               << QStringLiteral("2.00× [1.95, 2.05]");
        QTest::newRow("noisy") << true << QStringLiteral("launch-bound")
                               << QStringLiteral("2.00× [1.95, 2.05] noisy");
    }

    void intervalsAndNoisyTiming() {
        QFETCH(bool, noisy);
        QFETCH(QString, regime);
        QFETCH(QString, text);
        test::GuiFixture fixture;
        const db::Id relu = fixture.attempt(fixture.run1(), "demo-a", "l1_relu");
        {
            db::Database database(fixture.path().toStdString());
            db::Statement q(
                database.connection(),
                "INSERT INTO attempt_timing(attempt_id, speedup_eager_low, speedup_eager_high, "
                "noisy_eager, regime) VALUES (?, 1.95, 2.05, ?, ?)");
            q.bind(1, relu).bind(2, noisy).bind(3, regime.toStdString()).exec();
        }
        ResultsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(test::loadSnapshot(fixture.path()), fixture.run1());
        const QModelIndex cell = m.index(m.rowOfTask(QStringLiteral("l1_relu")),
                                         m.columnOfModel(QStringLiteral("demo-a")));
        QCOMPARE(cell.data().toString(), text);
        const QString tip = cell.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("2.00× [1.95, 2.05] vs eager")), qPrintable(tip));
        QCOMPARE(tip.contains(QStringLiteral("noisy timing")), noisy);
        QVERIFY2(tip.contains(regime), qPrintable(tip));
        QCOMPARE(cell.data(ResultsModel::SpeedupRole).toDouble(), 2.0); // the point estimate
    }

private:
    test::GuiFixture m_fixture;
    gui::SnapshotPtr m_snapshot;
};

QTEST_MAIN(TestResultsModel)
#include "tst_resultsmodel.moc"
