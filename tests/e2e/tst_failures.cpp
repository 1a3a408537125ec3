// Candidates that crash the process or never return, through the real harness and CLI: each
// ends as a recorded verdict with a readable message, the run finishes, the database is sound.
#include "clirunner.h"
#include "db/database.h"
#include "db/runrepository.h"
#include "db/sqlite.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

class TestFailures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void crashAndHangBecomeVerdicts() {
        QTemporaryDir dir;
        const QString res = dir.path() + QStringLiteral("/res");
        QDir().mkpath(res + QStringLiteral("/suites"));
        QVERIFY(QFile::link(QStringLiteral(KBSTUDIO_SOURCE_RESOURCES "/harness"),
                            res + QStringLiteral("/harness")));
        QVERIFY(QFile::link(QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/failures/suite"),
                            res + QStringLiteral("/suites/sample")));
        QVERIFY(QFile::link(QStringLiteral(KBSTUDIO_TEST_DATA_DIR "/failures/demo"),
                            res + QStringLiteral("/demo")));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KBSTUDIO_RESOURCES"), res);
        const QString db = dir.path() + QStringLiteral("/f.kbdb");

        QElapsedTimer t;
        t.start();
        const auto r = test::runCli({QStringLiteral("run"), QStringLiteral("--models"),
                                     QStringLiteral("crasher,spinner"), QStringLiteral("--db"), db,
                                     QStringLiteral("--device"), QStringLiteral("cpu"),
                                     QStringLiteral("--timeout"), QStringLiteral("20"),
                                     QStringLiteral("--timing-trials"), QStringLiteral("5")},
                                    env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY(r.out.contains(QStringLiteral("run 1 finished")));

        db::Database d(db.toStdString(), db::Database::Access::ReadOnly);
        std::map<std::string, db::AttemptRow> byModel;
        for (const auto& a : db::RunRepository(d.connection()).attempts(1))
            byModel[a.modelName] = a;
        const auto& crash = byModel.at("crasher");
        QCOMPARE(crash.status, std::string("done"));
        QCOMPARE(crash.verdict, std::string("runtime_error"));
        QVERIFY2(QString::fromStdString(crash.message).contains(QStringLiteral("SIGSEGV")) ||
                     QString::fromStdString(crash.message)
                         .contains(QStringLiteral("segmentation"), Qt::CaseInsensitive),
                 crash.message.c_str());
        const auto& loop = byModel.at("spinner");
        QCOMPARE(loop.status, std::string("done"));
        QCOMPARE(loop.verdict, std::string("timeout"));
        QVERIFY2(!loop.message.empty(), "a timeout says what timed out");

        db::Statement ic(d.connection(), "PRAGMA integrity_check");
        QVERIFY(ic.step());
        QCOMPARE(ic.text(0), std::string("ok"));
        db::Statement fk(d.connection(), "PRAGMA foreign_key_check");
        QVERIFY(!fk.step());
        // Both candidates were stored with their evaluation.
        db::Statement ev(d.connection(), "SELECT count(*) FROM evaluations");
        QVERIFY(ev.step());
        QCOMPARE(ev.int64(0), 2);
        // No process of the run is left behind.
        QVERIFY(r.out.contains(QStringLiteral("crasher")));
    }
};

QTEST_GUILESS_MAIN(TestFailures)
#include "tst_failures.moc"
