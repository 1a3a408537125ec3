// The Slurm backend against a real one-node Slurm on localhost (started by start-slurm.sh):
// a CPU-mode run of the sample suite whose evaluations run as batch jobs, verdicts stored.
#include "../e2e/clirunner.h"
#include "db/database.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

class TestSlurm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QProcess start;
        start.setProcessChannelMode(QProcess::MergedChannels);
        start.start(QStringLiteral("bash"),
                    {QStringLiteral(KBSTUDIO_START_SLURM), QStringLiteral("kbstudio")});
        QVERIFY(start.waitForFinished(120000));
        const QString output = QString::fromUtf8(start.readAll());
        QVERIFY2(start.exitStatus() == QProcess::NormalExit && start.exitCode() == 0,
                 qPrintable(QStringLiteral("cannot start a local Slurm: ") + output));
    }

    void evaluationsRunAsBatchJobs() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("slurm.kbdb"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("KBSTUDIO_SLURM_POLL_MS"), QStringLiteral("300"));
        const auto r = test::runCli(
            {QStringLiteral("run"), QStringLiteral("--models"), QStringLiteral("demo-a,demo-b"),
             QStringLiteral("--tasks"), QStringLiteral("l1-gelu-tanh"), QStringLiteral("--device"),
             QStringLiteral("cpu"), QStringLiteral("--backend"), QStringLiteral("slurm"),
             QStringLiteral("--slurm-partition"), QStringLiteral("kbstudio"),
             QStringLiteral("--jobs"), QStringLiteral("2"), QStringLiteral("--quiet"),
             QStringLiteral("--db"), path},
            env, 280000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));

        db::Database d(path.toStdString(), db::Database::Access::ReadOnly);
        auto& c = d.connection();
        QCOMPARE(db::QueueRepository(c).runBackend(1), std::string("slurm"));
        std::map<std::string, db::AttemptRow> byModel;
        for (const auto& a : db::RunRepository(c).attempts(1))
            byModel[a.modelName] = a;
        QCOMPARE(byModel.size(), size_t(2));
        QCOMPARE(byModel.at("demo-a").verdict, std::string("correct"));
        QCOMPARE(byModel.at("demo-b").verdict, std::string("incorrect"));
        db::Statement q(
            c, "SELECT count(*) FROM evaluations e JOIN timing_series t ON t.evaluation_id = e.id");
        QVERIFY(q.step());
        QVERIFY(q.int64(0) >= 2); // candidate and eager timing of the correct one

        // Slurm ran one evaluation job per attempt, and they completed.
        QProcess show;
        show.start(QStringLiteral("scontrol"),
                   {QStringLiteral("show"), QStringLiteral("job"), QStringLiteral("--oneliner")});
        QVERIFY(show.waitForFinished(30000));
        const QStringList jobs =
            QString::fromUtf8(show.readAllStandardOutput()).split(QLatin1Char('\n'));
        for (const auto& [model, attempt] : byModel) {
            const QString name = QStringLiteral("JobName=kbstudio-attempt-%1 ").arg(attempt.id);
            bool completed = false;
            for (const auto& job : jobs)
                completed = completed || (job.contains(name) &&
                                          job.contains(QStringLiteral("JobState=COMPLETED")) &&
                                          job.contains(QStringLiteral("Partition=kbstudio")));
            QVERIFY2(completed,
                     qPrintable(QStringLiteral("no completed Slurm job %1 in:\n").arg(name) +
                                jobs.join(QLatin1Char('\n'))));
        }
        // No job folder (none holds a request any more) is left behind.
        const QDir spool(dir.filePath(QStringLiteral("slurm.work/slurm")));
        QVERIFY(spool.exists());
        QVERIFY(spool.entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_slurm.moc"
