// The pure policies: when to retry and how long to wait, request limits and budgets, prices,
// and the redaction of secrets.
#include "providers/pricing.h"
#include "providers/redaction.h"
#include "providers/requestlimiter.h"
#include "providers/retrypolicy.h"

#include <QTest>
#include <QTimeZone>

using namespace kb;

namespace {
engine::RetryPolicy fixedPolicy(double random, engine::RetrySettings s = {}) {
    const QDateTime now = QDateTime(QDate(2025, 1, 2), QTime(3, 4, 5), QTimeZone::utc());
    return engine::RetryPolicy(
        s, [now] { return now; }, [random] { return random; });
}
} // namespace

class TestPolicy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void retryableStatuses_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<bool>("retryable");
        for (int s : {408, 409, 429, 500, 502, 503, 504, 529})
            QTest::addRow("%d", s) << s << true;
        for (int s : {400, 401, 403, 404, 413, 422})
            QTest::addRow("%d", s) << s << false;
    }
    void retryableStatuses() {
        QFETCH(int, status);
        QFETCH(bool, retryable);
        QCOMPARE(engine::RetryPolicy::isRetryableStatus(status), retryable);
    }

    void retryAfterHeaders_data() {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("seconds") << QByteArray("Retry-After") << QByteArray("3") << qint64(3000);
        QTest::newRow("fractional seconds")
            << QByteArray("retry-after") << QByteArray("0.25") << qint64(250);
        QTest::newRow("ms") << QByteArray("retry-after-ms") << QByteArray("1500") << qint64(1500);
        QTest::newRow("http date") << QByteArray("retry-after")
                                   << QByteArray("Thu, 02 Jan 2025 03:04:35 GMT") << qint64(30000);
        QTest::newRow("date in the past")
            << QByteArray("retry-after") << QByteArray("Thu, 02 Jan 2025 03:00:00 GMT")
            << qint64(0);
        QTest::newRow("garbage") << QByteArray("retry-after") << QByteArray("soon") << qint64(-1);
    }
    void retryAfterHeaders() {
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, value);
        QFETCH(qint64, ms);
        const auto p = fixedPolicy(0);
        QCOMPARE(p.retryAfterMs({{name, value}}).value_or(-1), ms);
    }

    void retryAfterMsWinsOverRetryAfter() {
        const auto p = fixedPolicy(0);
        QCOMPARE(p.retryAfterMs({{"retry-after", "2"}, {"retry-after-ms", "120"}}).value_or(-1),
                 qint64(120));
    }

    void exponentialBackoffWithJitter() {
        engine::RetrySettings s;
        s.baseDelayMs = 100;
        s.maxDelayMs = 1000;
        s.jitter = 0.5;
        s.maxAttempts = 10;
        const auto noJitter = fixedPolicy(0.0, s);
        QCOMPARE(noJitter.backoffMs(1), qint64(100));
        QCOMPARE(noJitter.backoffMs(2), qint64(200));
        QCOMPARE(noJitter.backoffMs(3), qint64(400));
        QCOMPARE(noJitter.backoffMs(5), qint64(1000)); // capped
        const auto fullJitter = fixedPolicy(1.0, s);
        QCOMPARE(fullJitter.backoffMs(2), qint64(100));
        const auto d = noJitter.decide(1, true, std::nullopt);
        QVERIFY(d.retry);
        QCOMPARE(d.delayMs, qint64(100));
    }

    void decisions() {
        engine::RetrySettings s;
        s.maxAttempts = 3;
        s.maxRetryAfterMs = 10000;
        const auto p = fixedPolicy(0, s);
        QVERIFY(!p.decide(1, false, std::nullopt).retry); // not retryable
        QVERIFY(!p.decide(3, true, std::nullopt).retry);  // attempts used up
        QCOMPARE(p.decide(2, true, qint64(700)).delayMs,
                 qint64(700));                            // retry-after honoured exactly
        QVERIFY(!p.decide(1, true, qint64(60000)).retry); // asks for too long
    }

    void limiterQueuesInOrder() {
        engine::RequestLimiter l(2);
        QList<quint64> started;
        for (quint64 id = 1; id <= 4; ++id)
            l.submit(
                id, [&started, id] { started.append(id); },
                [](const QString&) { QFAIL("refused"); });
        QCOMPARE(started, (QList<quint64>{1, 2}));
        QCOMPARE(l.running(), 2);
        QCOMPARE(l.waiting(), 2);
        QVERIFY(l.cancel(4));
        l.release(2, 5);
        QCOMPARE(started, (QList<quint64>{1, 2, 3}));
        l.release(1, 5);
        l.release(3, 5);
        QCOMPARE(l.running(), 0);
        QCOMPARE(l.tokensUsed(), qint64(15));
    }

    void limiterRefusesOnceTheBudgetIsSpent() {
        engine::RequestLimiter l(1, 100);
        QStringList refused;
        int starts = 0;
        const auto refuse = [&refused](const QString& why) { refused.append(why); };
        l.submit(
            1, [&] { ++starts; }, refuse);
        l.submit(
            2, [&] { ++starts; }, refuse); // waits for the slot
        l.release(1, 120);                 // the budget is spent while 2 waits
        QCOMPARE(starts, 1);
        QCOMPARE(refused.size(), 1);
        QVERIFY2(refused.at(0).contains(
                     QStringLiteral("token budget of 100 tokens is spent (120 used)")),
                 qPrintable(refused.at(0)));
        l.submit(
            3, [&] { ++starts; }, refuse);
        QCOMPARE(refused.size(), 2);
        QVERIFY(l.budgetSpent());
    }

    void prices() {
        engine::ModelPrice p{3.0, 15.0, 0.3, 3.75};
        // 1M input of which 400k cache reads and 100k cache writes, 200k output.
        const engine::TokenUsage u{1000000, 200000, 400000, 100000};
        QCOMPARE(p.cost(u), 0.5 * 3.0 + 0.2 * 15.0 + 0.4 * 0.3 + 0.1 * 3.75);
        engine::ModelPrice noCachePrices{2.0, 8.0, {}, {}};
        QCOMPARE(noCachePrices.cost(u), 1.0 * 2.0 + 0.2 * 8.0);

        QString err;
        const auto t = engine::PriceTable::fromJson(
            QJsonObject{{QStringLiteral("m1"), QJsonObject{{QStringLiteral("input"), 1.0},
                                                           {QStringLiteral("output"), 2.0}}},
                        {QStringLiteral("*"),
                         QJsonObject{{QStringLiteral("input"), 0}, {QStringLiteral("output"), 0}}}},
            &err);
        QVERIFY2(t, qPrintable(err));
        QCOMPARE(t->cost(QStringLiteral("m1"), {1000000, 1000000, 0, 0}).value_or(-1), 3.0);
        QCOMPARE(t->cost(QStringLiteral("local"), {5, 5, 0, 0}).value_or(-1), 0.0);
        QVERIFY(!engine::PriceTable().cost(QStringLiteral("m1"), u));
        QVERIFY(!engine::PriceTable::fromJson(
            QJsonObject{{QStringLiteral("m"), QJsonObject{{QStringLiteral("input"), -1}}}}, &err));
        QVERIFY(err.contains(QStringLiteral("m")));
        QCOMPARE(engine::PriceTable::fromJson(t->toJson(), &err)
                     ->cost(QStringLiteral("m1"), {1000000, 0, 0, 0})
                     .value_or(-1),
                 1.0);
    }

    void redaction() {
        const engine::HttpHeaders h{{"Authorization", "Bearer sk-live-123456"},
                                    {"x-api-key", "ak-999999"},
                                    {"Content-Type", "application/json"}};
        const auto secrets = engine::secretsOf(h);
        QCOMPARE(secrets, (QList<QByteArray>{"sk-live-123456", "ak-999999"}));
        const auto red = engine::redactedHeaders(h);
        QCOMPARE(red.at(0).second, QByteArray("[redacted]"));
        QCOMPARE(red.at(1).second, QByteArray("[redacted]"));
        QCOMPARE(red.at(2).second, QByteArray("application/json"));
        QCOMPARE(engine::redactSecrets(
                     QStringLiteral("Incorrect API key provided: sk-live-123456."), secrets),
                 QStringLiteral("Incorrect API key provided: [redacted]."));
        QCOMPARE(engine::redactSecrets(QByteArray("k=ak-999999"), secrets),
                 QByteArray("k=[redacted]"));
    }
};

QTEST_GUILESS_MAIN(TestPolicy)
#include "tst_policy.moc"
