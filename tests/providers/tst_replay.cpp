// The replay provider re-serves a stored transcript in order, is labelled as not a model, and
// fails clearly when the conversation asks for more turns than were stored; the synchronous
// engine Provider adapter works over it.
#include "core/error.h"
#include "providers/chatcompletionprovider.h"
#include "providers/replayprovider.h"

#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {
QList<engine::ChatResponse> twoTurns() {
    engine::ChatResponse a;
    a.content = QStringLiteral("Let me read the file.");
    a.toolCalls = {
        {QStringLiteral("t1"), QStringLiteral("read_file"), QStringLiteral(R"({"path":"a.py"})")}};
    a.stopReason = engine::StopReason::ToolUse;
    a.usage = {100, 20, 0, 0};
    engine::ChatResponse b;
    b.content = QStringLiteral("```python\nclass ModelNew: pass\n```");
    b.reasoning = QStringLiteral("thought");
    b.usage = {150, 40, 100, 0};
    return {a, b};
}
} // namespace

class TestReplay : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<engine::ChatResponse>();
        qRegisterMetaType<engine::ProviderError>();
    }

    void servesTurnsInOrderThenReportsDivergence() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("transcript.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(engine::transcriptToJson(twoTurns())).toJson());
        f.close();

        std::unique_ptr<engine::ReplayProvider> replay(engine::ReplayProvider::fromFile(path));
        QCOMPARE(replay->kind(), QStringLiteral("replay"));
        QVERIFY(!replay->isModel());
        QCOMPARE(replay->turnsStored(), 2);
        QSignalSpy done(replay.get(), &engine::ChatClient::finished);
        QSignalSpy failed(replay.get(), &engine::ChatClient::failed);
        QSignalSpy deltas(replay.get(), &engine::ChatClient::streamDelta);
        engine::ChatRequest req;
        req.model = QStringLiteral("any");
        req.stream = true;
        const quint64 id1 = replay->send(req);
        QCOMPARE(done.size(), 0); // never from inside send()
        const quint64 id2 = replay->send(req);
        const quint64 id3 = replay->send(req);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 2000);
        QCOMPARE(done.size(), 2);
        QCOMPARE(done.at(0).at(0).toULongLong(), id1);
        QCOMPARE(done.at(1).at(0).toULongLong(), id2);
        QCOMPARE(done.at(0).at(1).value<engine::ChatResponse>().toolCalls.at(0).name,
                 QStringLiteral("read_file"));
        QCOMPARE(done.at(1).at(1).value<engine::ChatResponse>().reasoning,
                 QStringLiteral("thought"));
        QCOMPARE(deltas.size(), 2);
        QCOMPARE(failed.at(0).at(0).toULongLong(), id3);
        const auto e = failed.at(0).at(1).value<engine::ProviderError>();
        QVERIFY2(e.message.contains(QStringLiteral("diverged from the stored transcript: turn 3 "
                                                   "was requested but only 2 turns are stored")),
                 qPrintable(e.message));
        QVERIFY(!e.transient);
    }

    void badTranscriptFileThrows() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"turns\": 3}");
        f.close();
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::ReplayProvider::fromFile(path));
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::ReplayProvider::fromFile(
                                                    tmp.filePath(QStringLiteral("missing.json"))));
    }

    void cancelledTurnFails() {
        engine::ReplayProvider replay(twoTurns());
        QSignalSpy failed(&replay, &engine::ChatClient::failed);
        const quint64 id = replay.send({});
        replay.cancel(id);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 2000);
        QCOMPARE(failed.at(0).at(1).value<engine::ProviderError>().message,
                 QStringLiteral("cancelled"));
    }

    void synchronousAdapter() {
        engine::ReplayProvider replay(twoTurns());
        engine::ChatCompletionProvider provider(&replay, {});
        QCOMPARE(provider.kind(), QStringLiteral("replay"));
        engine::GenerationRequest g;
        g.model = QStringLiteral("m");
        g.prompt = QStringLiteral("write ModelNew");
        const auto r1 = provider.generate(g);
        QVERIFY(r1.ok);
        QCOMPARE(r1.response, QStringLiteral("Let me read the file."));
        QCOMPARE(r1.stopReason, QStringLiteral("tool_use"));
        QCOMPARE(r1.inputTokens, qint64(100));
        const auto r2 = provider.generate(g);
        QVERIFY(r2.response.contains(QStringLiteral("class ModelNew")));
        const auto r3 = provider.generate(g);
        QVERIFY(!r3.ok);
        QVERIFY(r3.error.contains(QStringLiteral("diverged")));
    }
};

QTEST_GUILESS_MAIN(TestReplay)
#include "tst_replay.moc"
