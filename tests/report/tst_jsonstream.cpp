// The streamed JSON export (kbstudio-cli export --format json) against the in-memory one: the
// same document for every filter, plus every stored column of each attempt, including columns
// a later schema adds.
#include "core/error.h"
#include "report/exporter.h"
#include "report/jsonexport.h"
#include "reportfixture.h"

#include <QBuffer>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace kb;
using Json = nlohmann::json;

namespace {

Json streamed(db::Connection& conn, const report::ExportFilter& filter) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    report::writeJsonExport(conn, filter, buffer);
    return Json::parse(buffer.data().toStdString());
}

Json inMemory(db::Connection& conn, const report::ExportFilter& filter) {
    const auto data =
        report::loadReportData(conn, filter, report::loadOptionsFor(report::ExportFormat::Json));
    return Json::parse(report::renderExport(report::ExportFormat::Json, data).toStdString());
}

} // namespace

class TestJsonStream : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameDocumentAsInMemory_data() {
        QTest::addColumn<bool>("oneRun");
        QTest::addColumn<QStringList>("models");
        QTest::addColumn<QList<int>>("levels");
        QTest::addColumn<QStringList>("verdicts");
        QTest::newRow("everything") << false << QStringList() << QList<int>() << QStringList();
        QTest::newRow("one run") << true << QStringList() << QList<int>() << QStringList();
        QTest::newRow("one model")
            << false << QStringList{QStringLiteral("model-a")} << QList<int>() << QStringList();
        QTest::newRow("level 1") << false << QStringList() << QList<int>{1} << QStringList();
        QTest::newRow("correct only")
            << true << QStringList() << QList<int>() << QStringList{QStringLiteral("correct")};
    }
    void sameDocumentAsInMemory() {
        QFETCH(bool, oneRun);
        QFETCH(QStringList, models);
        QFETCH(QList<int>, levels);
        QFETCH(QStringList, verdicts);
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.runId = oneRun ? fixture.run : 0;
        filter.models = models;
        filter.levels = levels;
        filter.verdicts = verdicts;
        auto& conn = fixture.database.connection();
        const Json memory = inMemory(conn, filter);
        const Json stream = streamed(conn, filter);
        for (const char* key :
             {"format", "format_version", "filter", "runs", "environments", "leaderboard"})
            QVERIFY2(memory.at(key) == stream.at(key), key);
        QCOMPARE(stream.at("attempts").size(), memory.at("attempts").size());
        QVERIFY(!stream.at("attempts").empty());
        for (size_t i = 0; i < memory.at("attempts").size(); ++i) {
            const Json& m = memory.at("attempts").at(i);
            const Json& s = stream.at("attempts").at(i);
            for (const auto& [key, value] : m.items())
                QVERIFY2(s.contains(key) && s.at(key) == value,
                         qPrintable(QString::fromStdString(
                             key + ": " + s.value(key, Json()).dump() + " != " + value.dump())));
        }
    }

    // Other columns of the attempt row come by name, a column added later included.
    void everyStoredColumnIsExported() {
        test::ReportFixture fixture;
        auto& conn = fixture.database.connection();
        conn.exec("ALTER TABLE attempts ADD COLUMN later_metric REAL");
        conn.exec("UPDATE attempts SET later_metric = id * 0.5, cost_usd = 0.25");
        const Json stream = streamed(conn, {});
        for (const auto& a : stream.at("attempts")) {
            QCOMPARE(a.at("later_metric").get<double>(), a.at("attempt_id").get<double>() * 0.5);
            QCOMPARE(a.at("cost_usd").get<double>(), 0.25);
            QVERIFY(a.contains("model_id") && a.contains("task_id") && a.contains("tries"));
            QVERIFY(!a.contains("id")); // it is attempt_id
        }
    }

    void anUnknownModelIsTheSameError() {
        test::ReportFixture fixture;
        report::ExportFilter filter;
        filter.models = {QStringLiteral("nobody")};
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        try {
            report::writeJsonExport(fixture.database.connection(), filter, buffer);
            QFAIL("an unknown model must be refused");
        } catch (const engine::Error& e) {
            QVERIFY2(e.message().contains(QStringLiteral("no model 'nobody'")),
                     qPrintable(e.message()));
        }
    }
};

QTEST_GUILESS_MAIN(TestJsonStream)
#include "tst_jsonstream.moc"
