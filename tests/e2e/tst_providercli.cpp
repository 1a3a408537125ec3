// kbstudio-cli with providers that fail: settings refused on entry, `provider test` printing
// no key, a run whose provider errors leave it "finished" with exit status 3 and a separate
// count, model references, and a run stopped by SIGTERM leaving its attempts queued.
#include "../generation/scriptedreplies.h"
#include "fakeproviderserver.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace kb;
using test::ScriptedResponse;

namespace {
const QByteArray kKey = "sk-cli-Tq4Wm8Zr2Xv6Bn0Lk3Hj7Gf1Ds5Pa9Yc";

struct Cli {
    int exitCode = -1;
    QString out;
};

// Runs the CLI while this process's event loop serves the fake provider.
Cli runCli(const QStringList& args, const QProcessEnvironment& env, int timeoutMs = 120000) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    QSignalSpy done(&p, &QProcess::finished);
    p.start(QStringLiteral(KBSTUDIO_CLI), args);
    Cli r;
    if (!done.wait(timeoutMs)) {
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

class TestProviderCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QProcessEnvironment m_env;
    QString db() const { return m_dir.filePath(QStringLiteral("cli.kbdb")); }
    QStringList withDb(QStringList a) const { return a << QStringLiteral("--db") << db(); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("KBSTUDIO_CONFIG_DIR"),
                     m_dir.filePath(QStringLiteral("config")));
        m_env.insert(QStringLiteral("KBSTUDIO_KEYSTORE"), QStringLiteral("file"));
        m_env.insert(QStringLiteral("KBSTUDIO_TEST_KEY"), QString::fromLatin1(kKey));
    }

    void badSettingsAreRefusedOnEntry() {
        const Cli hot = runCli(
            withDb({QStringLiteral("provider"), QStringLiteral("add"), QStringLiteral("--name"),
                    QStringLiteral("x"), QStringLiteral("--kind"), QStringLiteral("anthropic"),
                    QStringLiteral("--base-url"), QStringLiteral("https://api.anthropic.com"),
                    QStringLiteral("--temperature"), QStringLiteral("1.5")}),
            m_env);
        QCOMPARE(hot.exitCode, 2);
        QVERIFY2(hot.out.contains(QStringLiteral("from 0 to 1")), qPrintable(hot.out));
        const Cli header = runCli(
            withDb({QStringLiteral("provider"), QStringLiteral("add"), QStringLiteral("--name"),
                    QStringLiteral("x"), QStringLiteral("--kind"), QStringLiteral("openai"),
                    QStringLiteral("--base-url"), QStringLiteral("https://api.example.com/v1"),
                    QStringLiteral("--extra-headers"),
                    QStringLiteral("{\"Authorization\":\"Bearer sk-x\"}")}),
            m_env);
        QCOMPARE(header.exitCode, 2);
        QVERIFY2(header.out.contains(QStringLiteral("key store")), qPrintable(header.out));
        const Cli json = runCli(
            withDb({QStringLiteral("provider"), QStringLiteral("add"), QStringLiteral("--name"),
                    QStringLiteral("x"), QStringLiteral("--kind"), QStringLiteral("openai"),
                    QStringLiteral("--base-url"), QStringLiteral("https://api.example.com/v1"),
                    QStringLiteral("--extra-body"), QStringLiteral("{oops")}),
            m_env);
        QCOMPARE(json.exitCode, 2);
        QVERIFY2(json.out.contains(QStringLiteral("JSON object")), qPrintable(json.out));
        const Cli list =
            runCli(withDb({QStringLiteral("provider"), QStringLiteral("list")}), m_env);
        QVERIFY2(!list.out.contains(QStringLiteral("x  [")),
                 qPrintable(list.out)); // nothing was stored
    }

    void providerTestPrintsNoKeyAndRunsCountProviderErrorsApart() {
        test::FakeProviderServer server;
        // Without /v1: normalised as the GUI's connection test does.
        const Cli add = runCli(
            withDb({QStringLiteral("provider"), QStringLiteral("add"), QStringLiteral("--name"),
                    QStringLiteral("oai"), QStringLiteral("--kind"), QStringLiteral("openai"),
                    QStringLiteral("--base-url"), server.url().toString(),
                    QStringLiteral("--key-env"), QStringLiteral("KBSTUDIO_TEST_KEY"),
                    QStringLiteral("--retries"), QStringLiteral("0")}),
            m_env);
        QCOMPARE(add.exitCode, 0);
        QVERIFY2(add.out.contains(QStringLiteral("/v1 was added")), qPrintable(add.out));
        QVERIFY(
            runCli(withDb({QStringLiteral("model"), QStringLiteral("add"),
                           QStringLiteral("--provider"), QStringLiteral("oai"),
                           QStringLiteral("--name"), QStringLiteral("o4-mini"),
                           QStringLiteral("--token-field"), QStringLiteral("max_completion_tokens"),
                           QStringLiteral("--reasoning-effort"), QStringLiteral("high")}),
                   m_env)
                .exitCode == 0);

        // The server quotes the key back in its reply: the CLI prints it redacted.
        server.enqueue(
            ScriptedResponse::json(200, R"({"object":"list","data":[{"id":"o4-mini"}]})"));
        server.enqueue(ScriptedResponse::json(
            200,
            R"({"id":"c","model":"o4-mini","choices":[{"index":0,"message":{"role":"assistant","content":"key )" +
                kKey +
                R"("},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}})"));
        const Cli probe = runCli(
            withDb({QStringLiteral("provider"), QStringLiteral("test"), QStringLiteral("oai"),
                    QStringLiteral("--model"), QStringLiteral("oai/o4-mini")}),
            m_env);
        QCOMPARE(probe.exitCode, 0);
        QVERIFY2(!probe.out.contains(QString::fromLatin1(kKey)), qPrintable(probe.out));
        QVERIFY2(probe.out.contains(QStringLiteral("[redacted]")), qPrintable(probe.out));
        const QJsonObject sent = server.requests().last().json();
        QCOMPARE(server.requests().last().path, QByteArray("/v1/chat/completions"));
        QVERIFY(sent.contains(QStringLiteral("max_completion_tokens")));
        QCOMPARE(sent.value(QStringLiteral("reasoning_effort")).toString(), QStringLiteral("high"));

        // The provider fails every request with a 500: the attempts are provider errors, not
        // model failures; the run finishes, counts them apart and exits 3.
        server.enqueue(
            ScriptedResponse::json(500, R"({"error":{"message":"upstream overloaded"}})"));
        const Cli run = runCli(
            withDb({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("sample"),
                    QStringLiteral("--levels"), QStringLiteral("1"), QStringLiteral("--tasks"),
                    QStringLiteral("l1-relu"), QStringLiteral("--models"),
                    QStringLiteral("oai/o4-mini"), QStringLiteral("--device"),
                    QStringLiteral("cpu"), QStringLiteral("--no-preflight"),
                    QStringLiteral("--quiet")}),
            m_env);
        QVERIFY2(run.exitCode == 3,
                 qPrintable(QStringLiteral("exit %1\n%2").arg(run.exitCode).arg(run.out)));
        QVERIFY2(run.out.contains(QStringLiteral("with provider errors")) &&
                     run.out.contains(QStringLiteral("--resume")),
                 qPrintable(run.out));
        QVERIFY(!run.out.contains(QString::fromLatin1(kKey)));

        // A pre-flight failure creates no run.
        server.enqueue(ScriptedResponse::json(
            400, R"({"error":{"message":"Unsupported value: 'temperature'"}})"));
        const Cli pre = runCli(withDb({QStringLiteral("run"), QStringLiteral("--suite"),
                                       QStringLiteral("sample"), QStringLiteral("--models"),
                                       QStringLiteral("o4-mini"), QStringLiteral("--device"),
                                       QStringLiteral("cpu"), QStringLiteral("--temperature"),
                                       QStringLiteral("0.2"), QStringLiteral("--quiet")}),
                               m_env);
        QCOMPARE(pre.exitCode, 1);
        QVERIFY2(pre.out.contains(QStringLiteral("pre-flight")) &&
                     pre.out.contains(QStringLiteral("Unsupported value")),
                 qPrintable(pre.out));
    }

    void sigtermStopsGracefully() {
        test::FakeProviderServer server;
        QVERIFY(runCli(withDb({QStringLiteral("provider"), QStringLiteral("add"),
                               QStringLiteral("--name"), QStringLiteral("slow"),
                               QStringLiteral("--kind"), QStringLiteral("openai"),
                               QStringLiteral("--base-url"),
                               server.url(QStringLiteral("/v1")).toString()}),
                       m_env)
                    .exitCode == 0);
        QVERIFY(runCli(withDb({QStringLiteral("model"), QStringLiteral("add"),
                               QStringLiteral("--provider"), QStringLiteral("slow"),
                               QStringLiteral("--name"), QStringLiteral("m")}),
                       m_env)
                    .exitCode == 0);
        ScriptedResponse never;
        never.neverAnswer = true;
        for (int i = 0; i < 4; ++i)
            server.enqueue(never);
        QProcess p;
        p.setProcessEnvironment(m_env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        QSignalSpy done(&p, &QProcess::finished);
        p.start(QStringLiteral(KBSTUDIO_CLI),
                withDb({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("sample"),
                        QStringLiteral("--models"), QStringLiteral("slow/m"),
                        QStringLiteral("--device"), QStringLiteral("cpu"),
                        QStringLiteral("--no-preflight"), QStringLiteral("--quiet")}));
        QTRY_VERIFY_WITH_TIMEOUT(!server.requests().isEmpty(), 30000);
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        QVERIFY(done.wait(30000));
        const QString out = QString::fromUtf8(p.readAll());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 128 + SIGTERM, qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("stopped by SIGTERM")) &&
                     out.contains(QStringLiteral("--resume")),
                 qPrintable(out));
        const Cli status = runCli(withDb({QStringLiteral("status")}), m_env);
        QVERIFY2(!status.out.contains(QStringLiteral("generating")), qPrintable(status.out));
        QVERIFY2(status.out.contains(QStringLiteral("queued")), qPrintable(status.out));
    }
};

QTEST_GUILESS_MAIN(TestProviderCli)
#include "tst_providercli.moc"
