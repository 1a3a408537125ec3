// Reproducing a paper, end to end on the CPU: the sample suite with both demo models and three
// samples per task, run with explicit settings; afterwards every output (the run's own report,
// `report` as text and Markdown, the HTML, PDF, Markdown, CSV, leaderboard CSV and JSON exports)
// shows pass@1, pass@3 and the geomean with its interval, next to the run's settings. A re-launch
// with --like stores exactly the same settings, prompt text included.
#include "clirunner.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// "1.23x [0.98, 1.50]" (text, Markdown) or "1.23× [0.98, 1.50]" (HTML, PDF)
const QRegularExpression
    kGeomeanWithInterval(QStringLiteral("\\d\\.\\d+[x×] \\[\\d[\\d.]*, \\d[\\d.]*\\]"));

void checkSettings(const QString& text, const QString& what) {
    for (const char* fact : {"precision fp32", "TF32 off", "max-autotune", "kernelbench (sha256 ",
                             "samples per task 3"})
        QVERIFY2(
            text.contains(QLatin1String(fact)),
            qPrintable(what + QStringLiteral(": no '") + QLatin1String(fact) + QLatin1Char('\'')));
}

void checkStatistics(QString text, const QString& what) {
    text.remove(QRegularExpression(QStringLiteral("<[^>]+>"))); // HTML: the text without its tags
    QVERIFY2(text.contains(QStringLiteral("pass@1")),
             qPrintable(what + QStringLiteral(": no pass@1")));
    QVERIFY2(text.contains(QStringLiteral("pass@3")),
             qPrintable(what + QStringLiteral(": no pass@3")));
    QVERIFY2(kGeomeanWithInterval.match(text).hasMatch(),
             qPrintable(what + QStringLiteral(": no geomean with its interval")));
    checkSettings(text, what);
}

QJsonObject settingsOf(const QString& db, int run) {
    // through the CLI's JSON export rather than SQL: the stored settings as a reader sees them
    const auto r =
        test::runCli({QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--run"),
                      QString::number(run), QStringLiteral("--format"), QStringLiteral("json"),
                      QStringLiteral("--out"), QStringLiteral("-")});
    return QJsonDocument::fromJson(r.out.toUtf8())
        .object()
        .value(QStringLiteral("runs"))
        .toArray()
        .at(0)
        .toObject()
        .value(QStringLiteral("settings"))
        .toObject();
}

} // namespace

class TestReproduce : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyOutputShowsPassAtKAndIntervals() {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("paper.kbdb"));
        // demo-a is correct on both tasks; demo-b is rejected on one and correct on the other.
        const auto run = test::runCli({QStringLiteral("run"),
                                       QStringLiteral("--db"),
                                       db,
                                       QStringLiteral("--suite"),
                                       QStringLiteral("sample"),
                                       QStringLiteral("--models"),
                                       QStringLiteral("demo-a,demo-b"),
                                       QStringLiteral("--tasks"),
                                       QStringLiteral("l1-relu,l2-scale-add-sigmoid"),
                                       QStringLiteral("--samples"),
                                       QStringLiteral("3"),
                                       QStringLiteral("--device"),
                                       QStringLiteral("cpu"),
                                       QStringLiteral("--precision"),
                                       QStringLiteral("fp32"),
                                       QStringLiteral("--compile"),
                                       QStringLiteral("--compile-mode"),
                                       QStringLiteral("max-autotune"),
                                       QStringLiteral("--prompt-template"),
                                       QStringLiteral("kernelbench"),
                                       QStringLiteral("--timing-trials"),
                                       QStringLiteral("5"),
                                       QStringLiteral("--max-timing-seconds"),
                                       QStringLiteral("0.5"),
                                       QStringLiteral("--quiet")},
                                      QProcessEnvironment::systemEnvironment(), 400000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        checkStatistics(run.out, QStringLiteral("run"));

        const auto text = test::runCli({QStringLiteral("report"), QStringLiteral("--db"), db,
                                        QStringLiteral("--run"), QStringLiteral("1")});
        QCOMPARE(text.exitCode, 0);
        checkStatistics(text.out, QStringLiteral("report"));
        const auto markdown = test::runCli(
            {QStringLiteral("report"), QStringLiteral("--db"), db, QStringLiteral("--run"),
             QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("markdown")});
        QCOMPARE(markdown.exitCode, 0);
        checkStatistics(markdown.out, QStringLiteral("report --format markdown"));
        const auto status = test::runCli({QStringLiteral("status"), QStringLiteral("--db"), db});
        checkSettings(status.out, QStringLiteral("status"));

        QMap<QString, QString> files;
        for (const char* format : {"html", "pdf", "markdown", "csv", "leaderboard-csv", "json"}) {
            const QString out = dir.filePath(QStringLiteral("export.") + QLatin1String(format));
            const auto r = test::runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                                         QStringLiteral("--run"), QStringLiteral("1"),
                                         QStringLiteral("--format"), QLatin1String(format),
                                         QStringLiteral("--out"), out});
            QVERIFY2(r.exitCode == 0, qPrintable(QLatin1String(format) + QLatin1Char(' ') + r.err));
            files.insert(QLatin1String(format), out);
        }
        checkStatistics(readAll(files[QStringLiteral("html")]), QStringLiteral("html"));
        checkStatistics(readAll(files[QStringLiteral("markdown")]),
                        QStringLiteral("markdown export"));
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (!pdftotext.isEmpty()) {
            QProcess p;
            p.start(pdftotext, {files[QStringLiteral("pdf")], QStringLiteral("-")});
            QVERIFY(p.waitForFinished(60000));
            // Narrow table cells wrap ("pas s@1"): compare the text without any white space.
            const QString pdf = QString::fromUtf8(p.readAllStandardOutput())
                                    .remove(QRegularExpression(QStringLiteral("\\s")));
            QVERIFY2(pdf.contains(QStringLiteral("pass@1")) &&
                         pdf.contains(QStringLiteral("pass@3")),
                     qPrintable(pdf.left(2000)));
            QVERIFY2(
                pdf.contains(QRegularExpression(QStringLiteral("\\d\\.\\d+\\S?\\[\\d[\\d.]*,\\d"))),
                qPrintable(pdf.left(2000)));
            for (const char* fact : {"precision", "fp32", "TF32", "max-autotune", "kernelbench"})
                QVERIFY2(pdf.contains(QLatin1String(fact)), fact);
        } else {
            QVERIFY(QFileInfo(files[QStringLiteral("pdf")]).size() > 1000);
            qWarning("pdftotext (poppler-utils) is missing: the PDF's text was not checked");
        }

        // The leaderboard CSV: pass@1, pass@k with k = 3 and the geomean's interval on every row
        // with a geomean; the demo serves the same candidate for every sample, so pass@1 and
        // pass@3 equal the pass rate.
        const QStringList lines = readAll(files[QStringLiteral("leaderboard-csv")])
                                      .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList head = lines.value(0).split(QLatin1Char(','));
        for (const char* column :
             {"pass_at_1", "k", "pass_at_k", "geomean_eager", "geomean_eager_low",
              "geomean_eager_high", "precision", "tf32", "compile_mode", "prompt_template"})
            QVERIFY2(head.contains(QLatin1String(column)), column);
        int withGeomean = 0;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QStringList f = lines[i].split(QLatin1Char(','));
            const auto col = [&](const char* name) {
                return f.value(head.indexOf(QLatin1String(name)));
            };
            QCOMPARE(col("k"), QStringLiteral("3"));
            QVERIFY2(!col("pass_at_1").isEmpty() && !col("pass_at_k").isEmpty(),
                     qPrintable(lines[i]));
            QCOMPARE(col("pass_at_1"), col("pass_rate"));
            QCOMPARE(col("pass_at_k"), col("pass_rate"));
            if (!col("geomean_eager").isEmpty()) {
                ++withGeomean;
                QVERIFY2(!col("geomean_eager_low").isEmpty() &&
                             !col("geomean_eager_high").isEmpty(),
                         qPrintable(lines[i]));
                QVERIFY(col("geomean_eager_low").toDouble() <=
                        col("geomean_eager").toDouble() + 1e-9);
                QVERIFY(col("geomean_eager_high").toDouble() >=
                        col("geomean_eager").toDouble() - 1e-9);
            }
        }
        QVERIFY2(withGeomean >= 3,
                 qPrintable(lines.join(QLatin1Char('\n')))); // a L1, a L2, b L2 (and overall)
        // The attempts CSV carries the settings on every row.
        const QString csv = readAll(files[QStringLiteral("csv")]);
        QVERIFY(csv.section(QLatin1Char('\n'), 0, 0).contains(QStringLiteral("prompt_template")));
        QCOMPARE(csv.count(QStringLiteral(",fp32,")), 12);

        // JSON: pass@k per cell, the geomean interval, the settings and every attempt's timing
        // fields.
        const QJsonObject json =
            QJsonDocument::fromJson(readAll(files[QStringLiteral("json")]).toUtf8()).object();
        const QJsonObject board = json.value(QStringLiteral("leaderboard")).toObject();
        QCOMPARE(board.value(QStringLiteral("pass_at_ks")).toArray(), (QJsonArray{1, 3}));
        bool intervalSeen = false;
        for (const auto& v : board.value(QStringLiteral("overall")).toArray()) {
            const QJsonObject cell = v.toObject();
            const QJsonArray passAtK = cell.value(QStringLiteral("pass_at_k")).toArray();
            QCOMPARE(passAtK.size(), 2);
            QCOMPARE(passAtK.at(1).toObject().value(QStringLiteral("k")).toInt(), 3);
            QVERIFY(passAtK.at(1).toObject().value(QStringLiteral("value")).isDouble());
            intervalSeen = intervalSeen ||
                           cell.value(QStringLiteral("geomean_eager_ci")).toArray().size() == 2;
        }
        QVERIFY(intervalSeen);
        const QJsonObject summary = json.value(QStringLiteral("runs"))
                                        .toArray()
                                        .at(0)
                                        .toObject()
                                        .value(QStringLiteral("settings_summary"))
                                        .toObject();
        QCOMPARE(summary.value(QStringLiteral("compile_mode")).toString(),
                 QStringLiteral("max-autotune"));
        QVERIFY(summary.value(QStringLiteral("prompt_template"))
                    .toString()
                    .startsWith(QStringLiteral("kernelbench")));
        const QJsonArray attempts = json.value(QStringLiteral("attempts")).toArray();
        QCOMPARE(attempts.size(), 12);
        int timed = 0;
        for (const auto& v : attempts) {
            const QJsonObject a = v.toObject();
            for (const char* key :
                 {"speedup_eager_low", "speedup_eager_high", "noisy", "timing_regime"})
                QVERIFY2(a.contains(QLatin1String(key)), key);
            if (a.value(QStringLiteral("verdict")).toString() == QLatin1String("correct")) {
                ++timed;
                QVERIFY(a.value(QStringLiteral("speedup_eager_low")).isDouble());
                QCOMPARE(a.value(QStringLiteral("timing_regime")).toString(),
                         QStringLiteral("cpu"));
            }
        }
        QCOMPARE(timed, 9); // demo-a 2 tasks x 3, demo-b 1 task x 3

        // A re-launch with the same settings: one quick attempt (demo-b's rejected candidate).
        const auto again = test::runCli(
            {QStringLiteral("run"), QStringLiteral("--db"), db, QStringLiteral("--like"),
             QStringLiteral("1"), QStringLiteral("--models"), QStringLiteral("demo-b"),
             QStringLiteral("--tasks"), QStringLiteral("l1-relu"), QStringLiteral("--samples"),
             QStringLiteral("1"), QStringLiteral("--quiet")});
        QVERIFY2(again.exitCode == 0, qPrintable(again.out + again.err));
        QJsonObject first = settingsOf(db, 1);
        QJsonObject second = settingsOf(db, 2);
        QCOMPARE(second.value(QStringLiteral("samples")).toInt(), 1);
        for (QJsonObject* s : {&first, &second})
            s->remove(QStringLiteral("samples"));
        QCOMPARE(second, first); // everything else, prompt text and digest included
        QVERIFY(first.value(QStringLiteral("generation"))
                    .toObject()
                    .value(QStringLiteral("prompt_template_text"))
                    .toString()
                    .contains(QStringLiteral("scaled_silu_kernel")));
    }

    void badSettingsAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("precision")
            << QStringList{QStringLiteral("--precision"), QStringLiteral("fp64")} << 2
            << "--precision must be fp32, fp16 or bf16";
        QTest::newRow("tolerance") << QStringList{QStringLiteral("--atol"), QStringLiteral("abc")}
                                   << 2 << "--atol and --rtol must be numbers";
        QTest::newRow("compile mode")
            << QStringList{QStringLiteral("--compile-mode"), QStringLiteral("fast")} << 2
            << "--compile-mode must be";
        QTest::newRow("template")
            << QStringList{QStringLiteral("--prompt-template"), QStringLiteral("no-such")} << 1
            << "no prompt template 'no-such' (a template file, or one of: kbstudio, kernelbench)";
        QTest::newRow("like and resume")
            << QStringList{QStringLiteral("--like"), QStringLiteral("1"),
                           QStringLiteral("--resume"), QStringLiteral("1")}
            << 2 << "--resume and --like exclude each other";
        QTest::newRow("like a missing run")
            << QStringList{QStringLiteral("--like"), QStringLiteral("7")} << 1
            << "no run with id 7";
    }
    void badSettingsAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("bad.kbdb"));
        QStringList full{
            QStringLiteral("run"),      QStringLiteral("--db"),   db,
            QStringLiteral("--models"), QStringLiteral("demo-a"), QStringLiteral("--device"),
            QStringLiteral("cpu"),      QStringLiteral("--quiet")};
        full << args;
        const auto r = test::runCli(full);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestReproduce)
#include "tst_reproduce.moc"
