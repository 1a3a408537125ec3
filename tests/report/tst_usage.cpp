// Time to first token and model snapshots (table turn_details) per attempt and per model, on the
// fixture with a few more turns whose figures are worked out by hand below.
#include "report/csvexport.h"
#include "report/exporter.h"
#include "report/jsonexport.h"
#include "report/reportdata.h"
#include "report/usagesection.h"
#include "reportfixture.h"

#include <QBuffer>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace kb;
using Json = nlohmann::json;

namespace {

// The fixture's turns: model-a L1_1 streamed in 250 ms (snapshot model-a-2026-01-01);
// model-b L2_2 not streamed, snapshot model-b-v1. Added here:
//   model-a L1_1, second turn: streamed in 350 ms, the same snapshot;
//   model-a L1_1 sample 1:     streamed in 150 ms, snapshot model-a-2026-02-01.
// Per attempt: L1_1 (250 + 350) / 2 = 300 ms over 2 turns; sample 1 150 ms over 1 turn;
// model-b L2_2 none over 0 turns. Per model: model-a (250 + 350 + 150) / 3 = 250 ms (the mean
// of the attempts' means would be 225), model-b none.
void addTurns(test::ReportFixture& f) {
    db::RunRepository runs(f.database.connection());
    db::TurnRow turn;
    turn.attemptId = f.at("model-a", "L1_1");
    turn.turnIndex = 1;
    turn.inputTokens = 100;
    turn.outputTokens = 40;
    turn.latencyMs = 600;
    turn.ttftMs = 350;
    turn.modelSnapshot = "model-a-2026-01-01";
    runs.addTurn(turn);
    turn.attemptId = f.secondSample;
    turn.turnIndex = 0;
    turn.ttftMs = 150;
    turn.modelSnapshot = "model-a-2026-02-01";
    runs.addTurn(turn);
}

QStringList csvRow(const QString& csv, db::Id attemptId, QStringList& header) {
    const QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    header = lines.front().split(QLatin1Char(','));
    for (const auto& line : lines.mid(1)) {
        if (line.startsWith(QString::number(attemptId) + QLatin1Char(',')))
            return line.split(QLatin1Char(',')); // no quoted field before the usage columns
    }
    return {};
}

} // namespace

class TestUsage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void perAttemptInCsv_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("sample");
        QTest::addColumn<QString>("ttft");
        QTest::addColumn<QString>("turns");
        QTest::addColumn<QString>("snapshots");
        QTest::newRow("two streamed turns")
            << QStringLiteral("model-a") << 0 << QStringLiteral("300") << QStringLiteral("2")
            << QStringLiteral("model-a-2026-01-01");
        QTest::newRow("one streamed turn")
            << QStringLiteral("model-a") << 1 << QStringLiteral("150") << QStringLiteral("1")
            << QStringLiteral("model-a-2026-02-01");
        QTest::newRow("not streamed, snapshot named")
            << QStringLiteral("model-b") << 0 << QString() << QStringLiteral("0")
            << QStringLiteral("model-b-v1");
    }
    void perAttemptInCsv() {
        QFETCH(QString, model);
        QFETCH(int, sample);
        QFETCH(QString, ttft);
        QFETCH(QString, turns);
        QFETCH(QString, snapshots);
        test::ReportFixture fixture;
        addTurns(fixture);
        const db::Id id = sample == 1                         ? fixture.secondSample
                          : model == QLatin1String("model-b") ? fixture.at("model-b", "L2_2")
                                                              : fixture.at("model-a", "L1_1");
        const auto data = report::loadReportData(fixture.database.connection(), {});
        QStringList header;
        const QStringList row = csvRow(QString::fromUtf8(report::attemptsCsv(data)), id, header);
        QVERIFY(!row.isEmpty());
        QCOMPARE(row.value(header.indexOf(QStringLiteral("ttft_ms"))), ttft);
        QCOMPARE(row.value(header.indexOf(QStringLiteral("ttft_turns"))), turns);
        QCOMPARE(row.value(header.indexOf(QStringLiteral("model_snapshots"))), snapshots);
    }

    // In memory and streamed alike.
    void perAttemptInJson() {
        test::ReportFixture fixture;
        addTurns(fixture);
        auto& conn = fixture.database.connection();
        const auto data =
            report::loadReportData(conn, {}, report::loadOptionsFor(report::ExportFormat::Json));
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        report::writeJsonExport(conn, {}, buffer);
        for (const Json& doc :
             {Json::parse(report::renderExport(report::ExportFormat::Json, data).toStdString()),
              Json::parse(buffer.data().toStdString())}) {
            int seen = 0;
            for (const auto& a : doc.at("attempts")) {
                const auto id = a.at("attempt_id").get<db::Id>();
                if (id == fixture.at("model-a", "L1_1")) {
                    QCOMPARE(a.at("ttft_ms").get<double>(), 300.0);
                    QCOMPARE(a.at("ttft_turns").get<int>(), 2);
                    QVERIFY(a.at("model_snapshots") == Json::array({"model-a-2026-01-01"}));
                    QCOMPARE(a.at("latency_ms").get<double>(), 850.0 + 600.0);
                    QCOMPARE(a.at("cache_read_tokens").get<int>(), 300);
                    QCOMPARE(a.at("provider").get<std::string>(), std::string("demo"));
                    QCOMPARE(a.at("base_url_host").get<std::string>(),
                             std::string("localhost:8000"));
                    QCOMPARE(a.at("cost_usd").get<double>(), 0.0123);
                    ++seen;
                } else if (id == fixture.at("model-b", "L2_2")) {
                    QVERIFY(a.at("ttft_ms").is_null());
                    QCOMPARE(a.at("ttft_turns").get<int>(), 0);
                    QVERIFY(a.at("model_snapshots") == Json::array({"model-b-v1"}));
                    ++seen;
                } else if (id == fixture.at("model-a", "L1_2")) {
                    QVERIFY(a.at("ttft_ms").is_null());
                    QVERIFY(a.at("model_snapshots") == Json::array());
                    ++seen;
                }
            }
            QCOMPARE(seen, 3);
        }
    }

    void perModel() {
        test::ReportFixture fixture;
        addTurns(fixture);
        const auto data = report::loadReportData(fixture.database.connection(), {});
        const auto usage = report::modelUsage(data);
        QCOMPARE(usage.size(), std::size_t(2));
        QCOMPARE(usage[0].model, std::string("model-a"));
        QCOMPARE(usage[0].ttftTurns, 3);
        QCOMPARE(usage[0].meanTtftMs().value_or(-1), 250.0);
        QCOMPARE(usage[0].modelSnapshots, QStringList({QStringLiteral("model-a-2026-01-01"),
                                                       QStringLiteral("model-a-2026-02-01")}));
        QVERIFY(!usage[1].meanTtftMs());
        QCOMPARE(usage[1].modelSnapshots, QStringList{QStringLiteral("model-b-v1")});

        const QString md = report::usageMarkdown(data);
        QVERIFY2(
            md.contains(QStringLiteral("| 250 ms | model-a-2026-01-01, model-a-2026-02-01 |\n")),
            qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("| \u2014 | model-b-v1 |\n")), qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("Mean TTFT")));
        const QString html = report::usageXhtmlSection(data);
        QVERIFY(html.contains(QStringLiteral("<td class=\"num\">250 ms</td>"
                                             "<td>model-a-2026-01-01, model-a-2026-02-01</td>")));
    }
};

QTEST_GUILESS_MAIN(TestUsage)
#include "tst_usage.moc"
