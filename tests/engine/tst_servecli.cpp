// `kbstudio-cli serve` and the control commands against one database, as separate processes:
// runs are worked through by priority, pause/resume/cancel from another process take effect,
// `status` names the engine, a second engine is refused, and SIGTERM releases everything.
#include "../e2e/clirunner.h"
#include "db/database.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "fakeresourcesdir.h"
#include "run/runengine.h"

#include <QProcess>
#include <QTest>
#include <csignal>

using namespace kb;

namespace {
std::int64_t scalar(const QString& path, const std::string& sql) {
    try {
        db::Database d(path.toStdString(), db::Database::Access::ReadOnly);
        db::Statement q(d.connection(), sql);
        q.step();
        return q.int64(0);
    } catch (const db::Error&) {
        return -1;
    }
}

QMap<QString, QString> scripts(const QString& script) {
    QMap<QString, QString> m;
    for (const auto& model : {QStringLiteral("m"), QStringLiteral("n")})
        for (const auto& t : {QStringLiteral("t1"), QStringLiteral("t2"), QStringLiteral("t3")})
            m.insert(model + QLatin1Char('/') + t, script);
    return m;
}

db::Id createRun(const QString& path, int priority) {
    engine::RunEngine e(path);
    e.ensureDemoCatalog();
    engine::RunSpec s;
    s.suite = QStringLiteral("sample");
    s.models = {QStringLiteral("m"), QStringLiteral("n")};
    s.settings.device = QStringLiteral("cpu");
    s.settings.buildJobs = 1;
    const db::Id id = e.createRun(s);
    db::QueueRepository(e.database().connection()).setRunPriority(id, priority);
    return id;
}

class Server {
public:
    Server(const QString& path, const QStringList& extra = {}) {
        m_p.setProcessChannelMode(QProcess::MergedChannels);
        m_p.start(QStringLiteral(KBSTUDIO_CLI),
                  QStringList{QStringLiteral("serve"), QStringLiteral("--db"), path,
                              QStringLiteral("--poll"), QStringLiteral("0.2"),
                              QStringLiteral("--heartbeat-ms"), QStringLiteral("200"),
                              QStringLiteral("--lease"), QStringLiteral("3")} +
                      extra);
        m_p.waitForStarted();
    }
    ~Server() {
        if (m_p.state() != QProcess::NotRunning) {
            m_p.kill();
            m_p.waitForFinished();
        }
    }
    QProcess& process() { return m_p; }
    QString output() {
        m_out += QString::fromUtf8(m_p.readAll());
        return m_out;
    }

private:
    QProcess m_p;
    QString m_out;
};
} // namespace

class TestServeCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void serveFollowsPriorityAndObeysControlCommands() {
        test::FakeResources res(scripts(QStringLiteral("slow 0.3")));
        const QString path = res.dbPath();
        const db::Id low = createRun(path, 0);
        const db::Id high = createRun(path, 5);
        Server server(path, {QStringLiteral("--exit-when-idle")});
        // The higher-priority run is taken first.
        QTRY_VERIFY_WITH_TIMEOUT(
            scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " + std::to_string(high) +
                             " AND status <> 'queued'") >= 1,
            20000);
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " +
                                  std::to_string(low) + " AND status <> 'queued'"),
                 0);

        // Pause from here: the serving engine lets work in flight finish and moves to the other
        // run.
        const auto pause = test::runCli({QStringLiteral("pause"), QStringLiteral("--run"),
                                         QString::number(high), QStringLiteral("--db"), path});
        QCOMPARE(pause.exitCode, 0);
        QVERIFY2(pause.out.contains(QStringLiteral("paused; the serve engine")),
                 qPrintable(pause.out));
        const auto st = test::runCli({QStringLiteral("status"), QStringLiteral("--db"), path});
        QCOMPARE(st.exitCode, 0);
        QVERIFY2(st.out.contains(QStringLiteral("engine: serve on")), qPrintable(st.out));
        QVERIFY2(st.out.contains(QStringLiteral("ETA")), qPrintable(st.out));
        QVERIFY2(st.out.contains(QStringLiteral("(priority 5)")), qPrintable(st.out));

        // Cancel one model of the waiting run.
        const auto cancel = test::runCli({QStringLiteral("cancel"), QStringLiteral("--run"),
                                          QString::number(low), QStringLiteral("--model"),
                                          QStringLiteral("n"), QStringLiteral("--db"), path});
        QCOMPARE(cancel.exitCode, 0);
        QVERIFY2(
            cancel.out.contains(QStringLiteral("3 unfinished attempt(s) of model n cancelled")),
            qPrintable(cancel.out));

        // A second engine is told who holds the run.
        const auto second = test::runCli({QStringLiteral("run"), QStringLiteral("--resume"),
                                          QString::number(high), QStringLiteral("--db"), path});
        QCOMPARE(second.exitCode, 1);
        QVERIFY2(second.err.contains(QStringLiteral("being worked on by another engine")),
                 qPrintable(second.err));

        QTRY_VERIFY2_WITH_TIMEOUT(
            server.output().contains(QStringLiteral("run %1 paused; moving on").arg(high)),
            qPrintable(server.output()), 20000);
        const auto doneAtPause =
            scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " + std::to_string(high) +
                             " AND status = 'done'");
        // What was in flight finished; what had not started stays queued.
        QVERIFY(doneAtPause >= 1 && doneAtPause <= 3);
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " +
                                  std::to_string(high) + " AND status = 'queued'"),
                 6 - doneAtPause);
        QVERIFY2(
            scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " + std::to_string(high) +
                             " AND status IN ('generating','building','evaluating')") == 0,
            qPrintable(server.output()));
        QTRY_VERIFY_WITH_TIMEOUT(
            scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " + std::to_string(low) +
                             " AND status = 'done'") >= 1,
            20000);
        // Then resume the paused one.
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " +
                                  std::to_string(high) + " AND status = 'done'"),
                 doneAtPause);
        const auto resume = test::runCli({QStringLiteral("resume"), QStringLiteral("--run"),
                                          QString::number(high), QStringLiteral("--db"), path});
        QCOMPARE(resume.exitCode, 0);

        QVERIFY(server.process().waitForFinished(60000));
        QVERIFY2(server.process().exitCode() == 0, qPrintable(server.output()));
        QVERIFY2(server.output().contains(QStringLiteral("no run left")),
                 qPrintable(server.output()));
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " +
                                  std::to_string(high) + " AND status = 'done'"),
                 6);
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " +
                                  std::to_string(low) + " AND status = 'cancelled'"),
                 3);
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " +
                                  std::to_string(low) + " AND status = 'done'"),
                 3);
        QCOMPARE(scalar(path, "SELECT count(*) FROM evaluations"), 9);
        QCOMPARE(scalar(path, "SELECT count(*) FROM runs WHERE status = 'finished'"), 2);
    }

    void sigtermReleasesLeasesAndAnotherEngineFinishes() {
        test::FakeResources res(scripts(QStringLiteral("slow 0.4")));
        const QString path = res.dbPath();
        const db::Id run = createRun(path, 0);
        {
            Server server(path);
            QTRY_VERIFY_WITH_TIMEOUT(
                scalar(path, "SELECT count(*) FROM attempts WHERE status = 'done'") >= 1, 20000);
            QTRY_VERIFY_WITH_TIMEOUT(
                scalar(path,
                       "SELECT count(*) FROM attempts WHERE status IN ('building','evaluating')") >=
                    1,
                20000);
            ::kill(static_cast<pid_t>(server.process().processId()), SIGTERM);
            QVERIFY(server.process().waitForFinished(20000));
            QCOMPARE(server.process().exitStatus(), QProcess::NormalExit);
            QCOMPARE(server.process().exitCode(), 0);
            QVERIFY(server.output().contains(QStringLiteral("SIGTERM")));
        }
        // Nothing is left half-way or leased; the engine is marked stopped and the run is free.
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE status IN "
                              "('generating','building','evaluating')"),
                 0);
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE status = 'queued' AND "
                              "lease_owner IS NOT NULL"),
                 0);
        QCOMPARE(
            scalar(path,
                   "SELECT count(*) FROM engines WHERE stopped_at IS NULL OR run_id IS NOT NULL"),
            0);
        const auto done = scalar(path, "SELECT count(*) FROM attempts WHERE status = 'done'");
        QVERIFY(done < 6);
        QCOMPARE(scalar(path, "SELECT count(*) FROM evaluations"), done);
        const auto st = test::runCli({QStringLiteral("status"), QStringLiteral("--db"), path});
        QVERIFY2(st.out.contains(QStringLiteral("no engine is working on it")), qPrintable(st.out));

        Server again(path, {QStringLiteral("--exit-when-idle")});
        QVERIFY(again.process().waitForFinished(60000));
        QCOMPARE(scalar(path, "SELECT count(*) FROM attempts WHERE run_id = " +
                                  std::to_string(run) + " AND status = 'done'"),
                 6);
        QCOMPARE(scalar(path, "SELECT count(*) FROM evaluations"), 6);
        QCOMPARE(scalar(path, "SELECT count(*) FROM turns"), 6);
        QCOMPARE(scalar(path, "SELECT count(*) FROM (SELECT attempt_id FROM evaluations GROUP BY "
                              "attempt_id HAVING count(*) > 1)"),
                 0);
    }

    void controlErrorsAreClear() {
        test::FakeResources res(scripts(QStringLiteral("correct 2")));
        const QString path = res.dbPath();
        createRun(path, 0);
        const auto none = test::runCli({QStringLiteral("pause"), QStringLiteral("--run"),
                                        QStringLiteral("42"), QStringLiteral("--db"), path});
        QCOMPARE(none.exitCode, 1);
        QVERIFY(none.err.contains(QStringLiteral("no run with id 42")));
        const auto noRun = test::runCli({QStringLiteral("cancel"), QStringLiteral("--db"), path});
        QCOMPARE(noRun.exitCode, 2);
        const auto cancel = test::runCli({QStringLiteral("cancel"), QStringLiteral("--run"),
                                          QStringLiteral("1"), QStringLiteral("--db"), path});
        QCOMPARE(cancel.exitCode, 0);
        QVERIFY2(cancel.out.contains(QStringLiteral(
                     "run 1 cancelled (6 unfinished attempt(s)); no engine is working on it")),
                 qPrintable(cancel.out));
        const auto again = test::runCli({QStringLiteral("pause"), QStringLiteral("--run"),
                                         QStringLiteral("1"), QStringLiteral("--db"), path});
        QCOMPARE(again.exitCode, 1);
        QVERIFY(again.err.contains(QStringLiteral("already cancelled")));
    }
};

QTEST_GUILESS_MAIN(TestServeCli)
#include "tst_servecli.moc"
