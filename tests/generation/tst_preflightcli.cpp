// `kbstudio-cli run --resume` asks each model of a run that has started before once more before
// continuing, as a new run does: a provider that now refuses stops the resume with its message.
#include "fakeproviderserver.h"
#include "scriptedreplies.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;
using test::ScriptedResponse;

namespace {
const QByteArray kKey = "sk-cli-Pf3Wm8Zr2Xv6Bn0Lk3Hj7Gf1Ds5Pa9Yc";

struct Cli {
    int exitCode = -1;
    QString out;
};

// Runs the CLI while this process's event loop serves the fake provider.
Cli runCli(const QStringList& args, const QProcessEnvironment& env) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    QSignalSpy done(&p, &QProcess::finished);
    p.start(QStringLiteral(KBSTUDIO_CLI), args);
    Cli r;
    if (!done.wait(120000)) {
        p.kill();
        p.waitForFinished();
        r.out = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAll());
    return r;
}
} // namespace

class TestPreflightCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QProcessEnvironment m_env;
    QStringList withDb(QStringList a) const {
        return a << QStringLiteral("--db") << m_dir.filePath(QStringLiteral("cli.kbdb"));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("KBSTUDIO_CONFIG_DIR"),
                     m_dir.filePath(QStringLiteral("config")));
        m_env.insert(QStringLiteral("KBSTUDIO_KEYSTORE"), QStringLiteral("file"));
        m_env.insert(QStringLiteral("KBSTUDIO_TEST_KEY"), QString::fromLatin1(kKey));
    }

    void resumeAsksTheModelsFirst() {
        test::FakeProviderServer server;
        QCOMPARE(
            runCli(
                withDb({QStringLiteral("provider"), QStringLiteral("add"), QStringLiteral("--name"),
                        QStringLiteral("oai"), QStringLiteral("--kind"), QStringLiteral("openai"),
                        QStringLiteral("--base-url"), server.url(QStringLiteral("/v1")).toString(),
                        QStringLiteral("--key-env"), QStringLiteral("KBSTUDIO_TEST_KEY"),
                        QStringLiteral("--retries"), QStringLiteral("0")}),
                m_env)
                .exitCode,
            0);
        QCOMPARE(runCli(withDb({QStringLiteral("model"), QStringLiteral("add"),
                                QStringLiteral("--provider"), QStringLiteral("oai"),
                                QStringLiteral("--name"), QStringLiteral("m")}),
                        m_env)
                     .exitCode,
                 0);
        // A run whose only request meets a provider error: finished, its attempt to retry.
        server.enqueue(
            ScriptedResponse::json(500, R"({"error":{"message":"upstream overloaded"}})"));
        const Cli run = runCli(
            withDb({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("sample"),
                    QStringLiteral("--levels"), QStringLiteral("1"), QStringLiteral("--tasks"),
                    QStringLiteral("l1-relu"), QStringLiteral("--models"), QStringLiteral("oai/m"),
                    QStringLiteral("--device"), QStringLiteral("cpu"),
                    QStringLiteral("--no-preflight"), QStringLiteral("--quiet")}),
            m_env);
        QVERIFY2(run.exitCode == 3,
                 qPrintable(QStringLiteral("exit %1\n%2").arg(run.exitCode).arg(run.out)));
        const qsizetype before = server.requests().size();

        // The key was revoked meanwhile: the resume stops before any attempt.
        server.enqueue(ScriptedResponse::json(
            401,
            R"({"error":{"message":"Incorrect API key provided.","type":"invalid_request_error"}})"));
        const Cli resumed = runCli(withDb({QStringLiteral("run"), QStringLiteral("--resume"),
                                           QStringLiteral("1"), QStringLiteral("--quiet")}),
                                   m_env);
        QCOMPARE(resumed.exitCode, 1);
        QVERIFY2(resumed.out.contains(QStringLiteral("pre-flight: 1 model(s) asked, 1 refused")) &&
                     resumed.out.contains(QStringLiteral("the run was not resumed")) &&
                     resumed.out.contains(QStringLiteral("oai/m: HTTP 401")) &&
                     resumed.out.contains(QStringLiteral("Incorrect API key")),
                 qPrintable(resumed.out));
        QVERIFY(!resumed.out.contains(QString::fromLatin1(kKey)));
        QCOMPARE(server.requests().size(), before + 1); // the check only
        const QJsonObject check = server.requests().last().json();
        QCOMPARE(check.value(QStringLiteral("model")).toString(), QStringLiteral("m"));

        // --no-preflight skips it on a resume too: the attempt is asked for again.
        server.enqueue(
            ScriptedResponse::json(500, R"({"error":{"message":"upstream overloaded"}})"));
        const Cli skipped =
            runCli(withDb({QStringLiteral("run"), QStringLiteral("--resume"), QStringLiteral("1"),
                           QStringLiteral("--no-preflight"), QStringLiteral("--quiet")}),
                   m_env);
        QVERIFY2(!skipped.out.contains(QStringLiteral("pre-flight")), qPrintable(skipped.out));
        QVERIFY2(skipped.exitCode == 3,
                 qPrintable(QStringLiteral("exit %1\n%2").arg(skipped.exitCode).arg(skipped.out)));
    }
};

QTEST_GUILESS_MAIN(TestPreflightCli)
#include "tst_preflightcli.moc"
