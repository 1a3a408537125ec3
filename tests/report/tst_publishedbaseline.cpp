// Speedup vs KernelBench's published baseline: which GPU names match, and the values per attempt
// (CSV, JSON in memory and streamed) and per task (HTML) on the fixture, worked out by hand:
// the fixture ran on an "NVIDIA H200"; published eager times are L1_1 3.0 ms on H200_Lab (and
// 2.0 ms on H100_Modal, another GPU), L1_2 1.0 ms on H100_Modal only, L2_1 0.5 ms on H200_Lab.
//   model-a L1_1 sample 0: candidate median 1.0 ms -> 3.0 / 1.0 = 3
//   model-a L1_1 sample 1: 0.8 ms                   -> 3.0 / 0.8 = 3.75
//   model-b L1_1:          2.5 ms                   -> 3.0 / 2.5 = 1.2
//   model-b L1_2:          no published time on an H200 -> empty
//   model-a L2_1:          0.1 ms -> 0.5 / 0.1 = 5 per attempt; suspicious, so not in its task
//   model-a L1_2 (incorrect, never timed) -> empty
#include "report/csvexport.h"
#include "report/exporter.h"
#include "report/htmlreport.h"
#include "report/jsonexport.h"
#include "report/publishedbaseline.h"
#include "report/reportdata.h"
#include "reportfixture.h"

#include <QBuffer>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace kb;
using Json = nlohmann::json;

class TestPublishedBaseline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gpuModelKey_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("key");
        QTest::newRow("torch name")
            << QStringLiteral("NVIDIA H100 80GB HBM3") << QStringLiteral("H100");
        QTest::newRow("published folder") << QStringLiteral("H100_Modal") << QStringLiteral("H100");
        QTest::newRow("PCIe folder")
            << QStringLiteral("H100_PCIe_LambdaLabs") << QStringLiteral("H100");
        QTest::newRow("A100 variant")
            << QStringLiteral("NVIDIA A100-SXM4-80GB") << QStringLiteral("A100");
        QTest::newRow("L40S") << QStringLiteral("L40S_matx3") << QStringLiteral("L40S");
        QTest::newRow("GeForce") << QStringLiteral("NVIDIA GeForce RTX 4090")
                                 << QStringLiteral("RTX4090");
        QTest::newRow("one word") << QStringLiteral("RTX4090_home") << QStringLiteral("RTX4090");
        QTest::newRow("Tesla") << QStringLiteral("Tesla T4") << QStringLiteral("T4");
        QTest::newRow("no model") << QStringLiteral("cuda") << QString();
        QTest::newRow("cpu") << QStringLiteral("cpu") << QString();
    }
    void gpuModelKey() {
        QFETCH(QString, name);
        QFETCH(QString, key);
        QCOMPARE(report::gpuModelKey(name), key);
    }

    // Several published GPUs of one model: the one sharing most name tokens, then by name.
    void closestPublishedDeviceWins() {
        test::ReportFixture fixture;
        auto& conn = fixture.database.connection();
        conn.exec("INSERT INTO baselines(task_hash, device, torch_version, settings_key, "
                  "eager_median_ms) VALUES "
                  "('hash-L1_2', 'H100_PCIe_LambdaLabs', 'unknown', "
                  "'kernelbench-published;eager', 4.0)");
        const report::PublishedBaselines published(conn);
        db::Id l12 = 0;
        for (const auto& a : db::RunRepository(conn).attempts(fixture.run)) {
            if (a.taskKey == "L1_2")
                l12 = a.taskId;
        }
        const auto pcie = published.compare(l12, "NVIDIA H100 PCIe", 2.0);
        QVERIFY(pcie);
        QCOMPARE(pcie->device, std::string("H100_PCIe_LambdaLabs"));
        QCOMPARE(pcie->speedup, 2.0);
        const auto sxm = published.compare(l12, "NVIDIA H100 80GB HBM3", 2.0);
        QVERIFY(sxm);
        QCOMPARE(sxm->device, std::string("H100_Modal")); // a tie: the first by name
        QCOMPARE(sxm->speedup, 0.5);
        QVERIFY(!published.compare(l12, "NVIDIA H200", 2.0));
        QVERIFY(!published.compare(l12, "NVIDIA H100 PCIe", std::nullopt)); // not timed
    }

    void perAttemptInCsv_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("task");
        QTest::addColumn<int>("sample");
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("ms");
        QTest::addColumn<QString>("speedup");
        QTest::newRow("model-a L1_1")
            << QStringLiteral("model-a") << QStringLiteral("L1_1") << 0
            << QStringLiteral("H200_Lab") << QStringLiteral("3") << QStringLiteral("3");
        QTest::newRow("model-a L1_1, sample 1")
            << QStringLiteral("model-a") << QStringLiteral("L1_1") << 1
            << QStringLiteral("H200_Lab") << QStringLiteral("3") << QStringLiteral("3.75");
        QTest::newRow("model-b L1_1")
            << QStringLiteral("model-b") << QStringLiteral("L1_1") << 0
            << QStringLiteral("H200_Lab") << QStringLiteral("3") << QStringLiteral("1.2");
        QTest::newRow("another GPU only") << QStringLiteral("model-b") << QStringLiteral("L1_2")
                                          << 0 << QString() << QString() << QString();
        QTest::newRow("suspicious attempt")
            << QStringLiteral("model-a") << QStringLiteral("L2_1") << 0
            << QStringLiteral("H200_Lab") << QStringLiteral("0.5") << QStringLiteral("5");
        QTest::newRow("not timed") << QStringLiteral("model-a") << QStringLiteral("L1_2") << 0
                                   << QString() << QString() << QString();
    }
    void perAttemptInCsv() {
        QFETCH(QString, model);
        QFETCH(QString, task);
        QFETCH(int, sample);
        QFETCH(QString, device);
        QFETCH(QString, ms);
        QFETCH(QString, speedup);
        test::ReportFixture fixture;
        const db::Id id = sample == 1 ? fixture.secondSample
                                      : fixture.at(model.toStdString(), task.toStdString());
        const auto data = report::loadReportData(fixture.database.connection(), {});
        const QStringList lines = QString::fromUtf8(report::attemptsCsv(data))
                                      .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QStringList header = lines.front().split(QLatin1Char(','));
        // The row's last fields are the run settings, one of them quoted: count from the start.
        const qsizetype at = header.indexOf(QStringLiteral("published_device"));
        QVERIFY(at > 0);
        for (const auto& line : lines.mid(1)) {
            if (!line.startsWith(QString::number(id) + QLatin1Char(',')))
                continue;
            // Fields before these hold no comma except the message, empty for these rows.
            const QStringList f = line.split(QLatin1Char(','));
            QCOMPARE(f.value(at), device);
            QCOMPARE(f.value(at + 1), ms);
            QCOMPARE(f.value(at + 2), speedup);
            QCOMPARE(header.value(at + 2), QStringLiteral("speedup_published_eager"));
            return;
        }
        QFAIL("no row for the attempt");
    }

    void perAttemptInJson() {
        test::ReportFixture fixture;
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
                if (id == fixture.secondSample) {
                    QCOMPARE(a.at("published_device").get<std::string>(), std::string("H200_Lab"));
                    QCOMPARE(a.at("published_eager_ms").get<double>(), 3.0);
                    QCOMPARE(a.at("speedup_published_eager").get<double>(), 3.75);
                    ++seen;
                } else if (id == fixture.at("model-b", "L1_2")) {
                    QVERIFY(a.at("published_device").is_null());
                    QVERIFY(a.at("speedup_published_eager").is_null());
                    ++seen;
                }
            }
            QCOMPARE(seen, 2);
        }
    }

    // Per task: the best scoring sample's; a task without a scoring sample or a published time
    // on its GPU shows nothing.
    void perTaskInHtml() {
        test::ReportFixture fixture;
        const auto data = report::loadReportData(fixture.database.connection(), {});
        const QString html =
            QString::fromUtf8(report::renderExport(report::ExportFormat::Html, data));
        const auto rowOf = [&](const QString& task, const QString& model) {
            for (const auto& r : html.split(QStringLiteral("<tr>"))) {
                if (r.contains(QStringLiteral("<td>") + task + QStringLiteral("</td>")) &&
                    r.contains(QStringLiteral("<td>") + model + QStringLiteral("</td>")) &&
                    r.contains(QStringLiteral("</td><td>#")))
                    return r;
            }
            return QString();
        };
        QVERIFY2(html.contains(QStringLiteral("<th>vs published</th>")), qPrintable(html));
        QVERIFY2(rowOf(QStringLiteral("L1_1"), QStringLiteral("model-a"))
                     .contains(QStringLiteral("<td>3.75x (H200_Lab)</td>")),
                 qPrintable(rowOf(QStringLiteral("L1_1"), QStringLiteral("model-a"))));
        QVERIFY(rowOf(QStringLiteral("L1_1"), QStringLiteral("model-b"))
                    .contains(QStringLiteral("<td>1.20x (H200_Lab)</td>")));
        const QString l12 = rowOf(QStringLiteral("L1_2"), QStringLiteral("model-b"));
        QVERIFY(!l12.isEmpty() && !l12.contains(QStringLiteral("H100_Modal")));
        const QString l21 = rowOf(QStringLiteral("L2_1"), QStringLiteral("model-a"));
        QVERIFY(!l21.isEmpty() && !l21.contains(QStringLiteral("H200_Lab")));
        QVERIFY(html.contains(QStringLiteral("a reference only, not a paired measurement")));
    }
};

QTEST_GUILESS_MAIN(TestPublishedBaseline)
#include "tst_publishedbaseline.moc"
