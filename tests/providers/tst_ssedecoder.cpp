// The SSE line decoder: events survive any split of the bytes, every line ending, comments,
// multi-line data; a stream cut inside an event is reported.
#include "providers/ssedecoder.h"

#include <QTest>

using namespace kb;

namespace {
QList<engine::SseEvent> decodeAll(const QList<QByteArray>& pieces, QString* finishError = nullptr) {
    engine::SseDecoder d;
    QList<engine::SseEvent> out;
    for (const auto& p : pieces)
        out += d.feed(p);
    const QString err = d.finish();
    if (finishError)
        *finishError = err;
    return out;
}
} // namespace

class TestSseDecoder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySplitGivesTheSameEvents_data() {
        QTest::addColumn<QByteArray>("stream");
        QTest::newRow("LF") << QByteArray(
            "event: a\ndata: {\"x\":1}\n\n: keep-alive\n\ndata: two\ndata: lines\n\n");
        QTest::newRow("CRLF") << QByteArray("event: a\r\ndata: {\"x\":1}\r\n\r\n: "
                                            "keep-alive\r\n\r\ndata: two\r\ndata: lines\r\n\r\n");
        QTest::newRow("CR") << QByteArray(
            "event: a\rdata: {\"x\":1}\r\r: keep-alive\r\rdata: two\rdata: lines\r\r");
    }
    void everySplitGivesTheSameEvents() {
        QFETCH(QByteArray, stream);
        for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
            for (qsizetype cut2 = cut; cut2 <= stream.size(); cut2 += 7) {
                QString err;
                const auto events = decodeAll(
                    {stream.left(cut), stream.mid(cut, cut2 - cut), stream.mid(cut2)}, &err);
                QVERIFY2(err.isEmpty(), qPrintable(err));
                QCOMPARE(events.size(), 2);
                QCOMPARE(events.at(0).event, QByteArray("a"));
                QCOMPARE(events.at(0).data, QByteArray("{\"x\":1}"));
                QCOMPARE(events.at(1).event, QByteArray());
                QCOMPARE(events.at(1).data, QByteArray("two\nlines"));
            }
        }
    }

    void byteByByte() {
        const QByteArray stream("data: [DONE]\r\n\r\n");
        QList<QByteArray> bytes;
        for (char c : stream)
            bytes.append(QByteArray(1, c));
        const auto events = decodeAll(bytes);
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.at(0).data, QByteArray("[DONE]"));
    }

    void fieldsWithoutSpaceAndUnknownFieldsAndIds() {
        const auto events = decodeAll({"data:x\nid: 7\nretry: 100\nfoo: bar\n\n"});
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.at(0).data, QByteArray("x"));
        QCOMPARE(events.at(0).id, QByteArray("7"));
    }

    void eventWithoutDataIsNotDispatched() {
        QCOMPARE(decodeAll({"event: ping\n\n"}).size(), 0);
        QCOMPARE(decodeAll({"data:\n\n"}).size(), 1); // empty data still dispatches
    }

    void cutMidEventIsAnError_data() {
        QTest::addColumn<QByteArray>("stream");
        QTest::newRow("mid line") << QByteArray("data: {\"a\":1}\n\ndata: {\"b\"");
        QTest::newRow("line done, event not") << QByteArray("data: {\"a\":1}\n\ndata: {\"b\":2}\n");
        QTest::newRow("event line only") << QByteArray("event: message_delta\n");
    }
    void cutMidEventIsAnError() {
        QFETCH(QByteArray, stream);
        engine::SseDecoder d;
        const auto events = d.feed(stream);
        QCOMPARE(events.size(), stream.startsWith("data: {\"a") ? 1 : 0);
        QVERIFY(d.hasPartialEvent());
        QVERIFY(d.finish().contains(QStringLiteral("stream ended before completion")));
    }

    void cleanEndIsNoError() {
        engine::SseDecoder d;
        d.feed("data: x\n\n: trailing comment\n");
        QVERIFY(!d.hasPartialEvent());
        QVERIFY(d.finish().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSseDecoder)
#include "tst_ssedecoder.moc"
