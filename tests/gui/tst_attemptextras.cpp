// The attempt page's additions: the line diff, build errors from errors_json or the log, the
// transcript with roles, tool calls and costs, the code view with diffs against the reference
// and earlier turns, clickable build errors, and the GPU state around an evaluation.

#include "data/attemptextras.h"
#include "data/linediff.h"
#include "data/transcripthtml.h"
#include "db/database.h"
#include "guifixture.h"
#include "guitesthelpers.h"
#include "pages/attemptdetailpage.h"
#include "pages/codecompareview.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTest>
#include <QTextDocument>

using namespace kb;
using gui::DiffLine;

namespace {

QString plain(const QString& html) {
    QTextDocument d;
    d.setHtml(html);
    return d.toPlainText();
}

} // namespace

class TestAttemptExtras : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settingsDir); }

    void lineDiff() {
        const auto d = gui::diffTexts(QStringLiteral("a\nb\nc\n"), QStringLiteral("a\nx\nc\nd\n"));
        QCOMPARE(gui::diffText(d), QStringLiteral("  a\n- b\n+ x\n  c\n+ d"));
        QCOMPARE(gui::diffStats(d).added, 2);
        QCOMPARE(gui::diffStats(d).removed, 1);
        QCOMPARE(d[2].newLine, 2);
        QCOMPARE(d[1].oldLine, 2);
        QCOMPARE(d[4].newLine, 4);
        QCOMPARE(gui::diffStats(gui::diffTexts(QStringLiteral("same\n"), QStringLiteral("same\n")))
                     .added,
                 0);
        const auto fromNothing = gui::diffTexts({}, QStringLiteral("x\ny"));
        QCOMPARE(fromNothing.size(), size_t(2));
        QCOMPARE(fromNothing[0].kind, DiffLine::Added);
        // a moved block: the longest common subsequence keeps the most lines
        const auto moved =
            gui::diffTexts(QStringLiteral("1\n2\n3\n4\n5"), QStringLiteral("1\n4\n5\n2\n3"));
        QCOMPARE(gui::diffStats(moved).added, 2);
        QCOMPARE(gui::diffStats(moved).removed, 2);
    }

    void buildErrors() {
        auto e = gui::parseBuildErrors(
            "[{\"file\":\"cuda.cu\",\"line\":12,\"col\":5,\"message\":\"expected ';'\"}]",
            "ignored");
        QCOMPARE(e.size(), size_t(1));
        QCOMPARE(e[0].file, QStringLiteral("cuda.cu"));
        QCOMPARE(e[0].line, 12);
        QCOMPARE(e[0].column, 5);
        e = gui::parseBuildErrors(
            "[]", "nvcc ...\nkernel.cu(7): error: identifier \"blockIdx\" is undefined\n"
                  "main.cpp:3:10: fatal error: torch.h: No such file\nwarning: x\n");
        QCOMPARE(e.size(), size_t(2));
        QCOMPARE(e[0].file, QStringLiteral("kernel.cu"));
        QCOMPARE(e[0].line, 7);
        QCOMPARE(e[1].file, QStringLiteral("main.cpp"));
        QCOMPARE(e[1].line, 3);
        QCOMPARE(e[1].column, 10);
    }

    void transcriptShowsRolesToolsAndCost() {
        db::TurnRow a;
        a.turnIndex = 0;
        a.role = "generation";
        a.prompt = "Make it fast";
        a.response = "Calling tools";
        a.inputTokens = 100;
        a.outputTokens = 20;
        a.cacheReadTokens = 80;
        a.costUsd = 0.0125;
        a.toolCallsJson = "[{\"id\":\"c1\",\"name\":\"run_command\",\"arguments\":\"{\\\"cmd\\\":"
                          "\\\"nvcc -O3\\\"}\","
                          "\"result\":\"ok: built\",\"is_error\":false,\"seconds\":2.5}]";
        db::TurnRow b;
        b.turnIndex = 1;
        b.role = "feedback";
        b.error = "connection reset";
        b.costUsd = 0.0025;
        const QString text = plain(gui::transcriptHtml({a, b}));
        QVERIFY2(text.contains(QStringLiteral("2 turns")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("$0.0150")));
        QVERIFY(text.contains(QStringLiteral("Turn 0 · generation")));
        QVERIFY(text.contains(QStringLiteral("Turn 1 · feedback")));
        QVERIFY(text.contains(QStringLiteral("cache 80 read")));
        QVERIFY(text.contains(QStringLiteral("run_command · 2.5 s")));
        QVERIFY(text.contains(QStringLiteral("nvcc -O3")));
        QVERIFY(text.contains(QStringLiteral("ok: built")));
        QVERIFY(text.contains(QStringLiteral("Error: connection reset")));
        QVERIFY(plain(gui::transcriptHtml({})).contains(QStringLiteral("No conversation")));
    }

    void transcriptShowsTheProfileSummary() {
        // A profile call as the agent stores it: no arguments, the harness's summary as result.
        const QString summary = QStringLiteral(
            "Profile of model_new.py (Nsight Compute 2024.3.2 + Nsight Systems, NVIDIA H200; 3 "
            "forward call(s), 6 kernel launch(es) profiled)\n"
            "GPU time by kernel (nsys, real clocks), total 10.91 us:\n"
            "  #  kernel                            calls        total         mean   share\n"
            "  1  gelu_tanh_kernel                      3      8.54 us      2.85 us   78.3%\n"
            "  2  vectorized_elementwise_kernel<\u2026>      3      2.37 us      0.79 us   21.7%\n"
            "Top kernels (ncu):\n"
            "  1  gelu_tanh_kernel: occupancy 83.5% achieved / 100% theoretical; SM throughput "
            "31.4% of peak\n"
            "     roofline: 2.37 FLOP/byte, below the FP32 ridge at 11.2, memory-bound\n"
            "Hint: gelu_tanh_kernel runs at 79% of DRAM bandwidth: only moving fewer bytes makes "
            "it faster.\n");
        QJsonArray calls{
            QJsonObject{{QStringLiteral("id"), QStringLiteral("p")},
                        {QStringLiteral("name"), QStringLiteral("profile")},
                        {QStringLiteral("arguments"), QStringLiteral("{}")},
                        {QStringLiteral("result"), summary},
                        {QStringLiteral("is_error"), false},
                        {QStringLiteral("seconds"), 41.5}},
            QJsonObject{
                {QStringLiteral("id"), QStringLiteral("q")},
                {QStringLiteral("name"), QStringLiteral("profile")},
                {QStringLiteral("arguments"), QStringLiteral("{}")},
                {QStringLiteral("result"),
                 QStringLiteral(
                     "Profile failed (unavailable): Nsight Compute (ncu) is not installed")},
                {QStringLiteral("is_error"), true},
                {QStringLiteral("seconds"), 0.4}}};
        db::TurnRow t;
        t.role = "tool";
        t.toolCallsJson = QJsonDocument(calls).toJson(QJsonDocument::Compact).toStdString();
        const QString html = gui::transcriptHtml({t});
        const QString text = plain(html);
        QVERIFY2(text.contains(QStringLiteral("profile · 41.5 s")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Profile summary (Nsight Compute)")));
        // the table keeps its columns (a <pre> block, whitespace as stored), the hint its line
        QVERIFY(html.contains(QStringLiteral("<pre>Profile of model_new.py")));
        for (const QString& line : summary.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            QVERIFY2(text.contains(line), qPrintable(line));
        QVERIFY(!html.contains(QStringLiteral("<pre>{}</pre>")));
        // a failed profile is an error with its reason
        QVERIFY(text.contains(QStringLiteral("profile · 0.4 s · error")));
        QVERIFY(text.contains(
            QStringLiteral("Profile failed (unavailable): Nsight Compute (ncu) is not installed")));
    }

    void pageShowsDiffsErrorsAndGpuState() {
        test::GuiFixture fixture;
        const db::Id attempt =
            fixture.attempt(fixture.run1(), "demo-b", "l1_matmul"); // the build error
        {
            db::Database database(fixture.path().toStdString());
            auto& conn = database.connection();
            // a second turn's candidate, ten lines long, becomes the final one
            db::Statement c(conn, "INSERT INTO candidates(attempt_id, turn_index, code, code_hash) "
                                  "VALUES (?, 1, ?, 'h2')");
            c.bind(1, attempt)
                .bind(2, std::string("import torch\nclass ModelNew:\n    pass\n# 4\n# 5\n# 6\n"
                                     "blockIdx_used_here\n# 8\n# 9\n# 10\n"))
                .exec();
            db::Statement e(conn, "SELECT id FROM evaluations WHERE attempt_id = ?");
            e.bind(1, attempt);
            QVERIFY(e.step());
            db::Statement g(conn, "INSERT INTO gpu_samples(evaluation_id, phase, gpu_index, "
                                  "sm_clock_mhz, temperature_c, "
                                  "throttle_reasons) VALUES (?, 'before', 0, 1980, 40, ''), (?, "
                                  "'after', 0, 1410, 71, 'hw_slowdown')");
            g.bind(1, e.int64(0)).bind(2, e.int64(0)).exec();
        }
        gui::AttemptDetailPage page;
        page.setDatabasePath(fixture.path());
        QSignalSpy extras(&page, &gui::AttemptDetailPage::extrasShown);
        QSignalSpy shown(&page, &gui::AttemptDetailPage::detailShown);
        page.showAttempt(attempt);
        QTRY_COMPARE_WITH_TIMEOUT(extras.size(), 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);

        auto* code = page.codeView();
        QCOMPARE(code->compareCount(), 3); // candidate, vs reference, vs turn 0
        QVERIFY(code->text().startsWith(QStringLiteral("import torch")));
        code->setCompareIndex(2);
        QVERIFY2(code->summaryText().contains(QStringLiteral("+8")),
                 qPrintable(code->summaryText()));
        QVERIFY(code->text().contains(QStringLiteral("- # candidate for l1_matmul")));
        code->setCompareIndex(1);
        QVERIFY(code->text().contains(QStringLiteral("- class Model: pass")));

        QCOMPARE(page.buildErrorsModel()->rowCount(), 1);
        QVERIFY(page.buildErrorsModel()->item(0)->text().startsWith(
            QStringLiteral("kernel.cu:7: identifier")));
        page.tabs()->setCurrentIndex(gui::AttemptDetailPage::BuildTab);
        page.openBuildError(0);
        QCOMPARE(page.tabs()->currentIndex(), int(gui::AttemptDetailPage::CodeTab));
        QCOMPARE(code->currentLine(), 7);
        QVERIFY(!code->text().startsWith(QStringLiteral("  "))); // back to the plain candidate

        const QString env = page.environmentText();
        QVERIFY2(env.contains(QStringLiteral("GPU state around the evaluation")), qPrintable(env));
        QVERIFY(env.contains(QStringLiteral("hw_slowdown")));

        // a reload does not duplicate the GPU section
        page.reload();
        QTRY_COMPARE_WITH_TIMEOUT(extras.size(), 2, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 2, 10000);
        QCOMPARE(page.environmentText().count(QStringLiteral("GPU state around")), 1);
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(TestAttemptExtras)
#include "tst_attemptextras.moc"
