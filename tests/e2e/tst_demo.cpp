// The README's main job, as a test: the sample suite with both demo pseudo-models through the
// real CLI and harness. Every attempt ends with the verdict its stored candidate is known for
// (resources/demo/manifest.json), the cheating candidates are not counted as successes, and the
// report shows both models.
#include "clirunner.h"
#include "db/database.h"
#include "db/runrepository.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

class TestDemo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void demoRunMeetsTheManifest() {
        QTemporaryDir dir;
        const QString db = dir.path() + QStringLiteral("/demo.kbdb");
        const auto r = test::runCli({QStringLiteral("run"), QStringLiteral("--suite"),
                                     QStringLiteral("sample"), QStringLiteral("--models"),
                                     QStringLiteral("demo-a,demo-b"), QStringLiteral("--db"), db,
                                     QStringLiteral("--device"), QStringLiteral("cpu")},
                                    QProcessEnvironment::systemEnvironment(), 1200000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));

        QFile manifestFile(QStringLiteral(KBSTUDIO_SOURCE_RESOURCES "/demo/manifest.json"));
        QVERIFY(manifestFile.open(QIODevice::ReadOnly));
        const auto candidates = QJsonDocument::fromJson(manifestFile.readAll())
                                    .object()
                                    .value(QStringLiteral("candidates"))
                                    .toArray();

        db::Database d(db.toStdString(), db::Database::Access::ReadOnly);
        const auto attempts = db::RunRepository(d.connection()).attempts(1);
        QCOMPARE(attempts.size(), static_cast<size_t>(candidates.size()));
        QVERIFY(attempts.size() >= 16);
        std::map<std::string, db::AttemptRow> byKey;
        for (const auto& a : attempts)
            byKey[a.modelName + "/" + a.taskKey] = a;
        int correct = 0;
        for (const auto& v : candidates) {
            const auto c = v.toObject();
            const std::string key =
                QString(c.value(QStringLiteral("model")).toString() + QLatin1Char('/') +
                        c.value(QStringLiteral("task")).toString())
                    .toStdString();
            QVERIFY2(byKey.count(key), key.c_str());
            const auto& a = byKey.at(key);
            QString expect = c.value(QStringLiteral("expect")).toString();
            if (expect.startsWith(QLatin1String("correct")))
                expect = QStringLiteral("correct");
            const QString what =
                QStringLiteral("%1: expected %2, got %3 (%4)")
                    .arg(QString::fromStdString(key), expect, QString::fromStdString(a.verdict),
                         QString::fromStdString(a.message));
            QVERIFY2(QString::fromStdString(a.verdict) == expect, qPrintable(what));
            QCOMPARE(a.status, std::string("done"));
            if (a.verdict == "correct") {
                ++correct;
                QVERIFY2(a.speedupEager && *a.speedupEager > 0, qPrintable(what));
            } else {
                QVERIFY2(!a.speedupEager,
                         qPrintable(what)); // nothing but a correct attempt is timed
            }
        }
        QVERIFY(correct >= 8);
        QVERIFY(r.out.contains(QStringLiteral("Overall")));
        QVERIFY(r.out.contains(QStringLiteral("demo-a")) &&
                r.out.contains(QStringLiteral("demo-b")));
        // The rejected (cheating) candidates are counted as rejected, never as correct.
        const auto rep = test::runCli({QStringLiteral("report"), QStringLiteral("--db"), db,
                                       QStringLiteral("--format"), QStringLiteral("markdown")});
        QCOMPARE(rep.exitCode, 0);

        // Every verdict is shown with its reason; rejections name the rule that caught them.
        int rejected = 0;
        db::Id incorrectId = 0;
        for (const auto& a : attempts) {
            rejected += a.verdict == "rejected" ? 1 : 0;
            if (a.verdict == "incorrect" && incorrectId == 0)
                incorrectId = a.id;
        }
        QVERIFY(rejected >= 1 && incorrectId != 0);
        const auto rej = test::runCli({QStringLiteral("attempts"), QStringLiteral("--db"), db,
                                       QStringLiteral("--verdict"), QStringLiteral("rejected")});
        QCOMPARE(rej.exitCode, 0);
        QVERIFY2(rej.out.contains(QStringLiteral("%1 attempt(s)").arg(rejected)),
                 qPrintable(rej.out));
        QCOMPARE(rej.out.count(QStringLiteral("REJECT torch-op-in-forward")), rejected);
        QCOMPARE(rej.out.count(QStringLiteral("why: static check:")), rejected);
        const auto one = test::runCli({QStringLiteral("attempts"), QStringLiteral("--db"), db,
                                       QStringLiteral("--attempt"), QString::number(incorrectId)});
        QCOMPARE(one.exitCode, 0);
        QVERIFY2(one.out.contains(QStringLiteral("verdict: incorrect")), qPrintable(one.out));
        QVERIFY2(one.out.contains(
                     QRegularExpression(QStringLiteral("correctness: [0-4] of 5 trials passed"))),
                 qPrintable(one.out));
        QVERIFY(one.out.contains(QStringLiteral("outside atol=")));
    }
};

QTEST_GUILESS_MAIN(TestDemo)
#include "tst_demo.moc"
