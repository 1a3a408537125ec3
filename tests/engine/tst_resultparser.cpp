#include "eval/resultparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>

using namespace kb;

namespace {
QJsonObject trials(int n, bool passed = true) {
    QJsonArray a;
    for (int i = 0; i < n; ++i)
        a.append(QJsonObject{{QStringLiteral("index"), i},
                             {QStringLiteral("passed"), passed},
                             {QStringLiteral("max_abs_error"), 1e-6 * (i + 1)},
                             {QStringLiteral("max_rel_error"), 1e-5}});
    return QJsonObject{{QStringLiteral("passed"), passed}, {QStringLiteral("trials"), a}};
}

QJsonObject series(std::initializer_list<double> ms) {
    QJsonArray a;
    for (double m : ms)
        a.append(m);
    return QJsonObject{{QStringLiteral("samples_ms"), a}, {QStringLiteral("wall_ms"), 10.0}};
}

QJsonObject correctDoc(double eager = 4.0) {
    return QJsonObject{
        {QStringLiteral("schema"), QStringLiteral("kbstudio.eval-result/1")},
        {QStringLiteral("verdict"), QStringLiteral("correct")},
        {QStringLiteral("message"), QStringLiteral("ok")},
        {QStringLiteral("correctness"), trials(5)},
        {QStringLiteral("timing"),
         QJsonObject{
             {QStringLiteral("candidate"), series({1.0, 3.0, 2.0, 2.0})},
             {QStringLiteral("eager"), series({eager, eager, eager})},
             {QStringLiteral("compile"),
              QJsonObject{{QStringLiteral("unavailable"), QStringLiteral("no torch.compile")}}}}},
        {QStringLiteral("environment"),
         QJsonObject{{QStringLiteral("device"), QStringLiteral("cpu")},
                     {QStringLiteral("device_name"), QStringLiteral("Some CPU")},
                     {QStringLiteral("torch"), QStringLiteral("1.13.1")}}},
    };
}

engine::ParsedResult parse(const QJsonObject& o) {
    return engine::parseHarnessResult(QJsonDocument(o).toJson(), engine::EvalSettings{},
                                      QStringLiteral("taskhash"));
}
} // namespace

class TestResultParser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void statsFromSamples() {
        const auto s = engine::computeStats({3.0, 1.0, 2.0, 4.0});
        QCOMPARE(s.median, 2.5);
        QCOMPARE(s.mean, 2.5);
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.max, 4.0);
        QVERIFY(qAbs(s.std - 1.2909944487) < 1e-9); // sample standard deviation
        QCOMPARE(engine::computeStats({5.0}).std, 0.0);
    }

    void correctResultYieldsSpeedupFromSamples() {
        const auto r = parse(correctDoc());
        QVERIFY2(r.ok, qPrintable(r.error));
        // Medians recomputed from the samples: candidate 2.0, eager 4.0.
        QCOMPARE(*r.record.speedupEager, 2.0);
        QVERIFY(!r.record.speedupCompile);
        QVERIFY(!r.record.suspicious);
        QCOMPARE(r.record.trials.size(), size_t(5));
        QCOMPARE(*r.record.evaluation.maxAbsError, 5e-6);
        QVERIFY(qAbs(*r.record.evaluation.meanAbsError - 3e-6) < 1e-15);
        QVERIFY(r.record.baseline);
        QCOMPARE(r.record.baseline->device, std::string("Some CPU"));
        QCOMPARE(r.record.baseline->compileNote, std::string("no torch.compile"));
        QCOMPARE(r.record.timing.size(), size_t(2));
        QCOMPARE(r.record.timing[0].samplesMs.size(), size_t(4));
        QVERIFY(r.record.environment);
    }

    void gpuStateBecomesSamples() {
        auto doc = correctDoc();
        doc.insert(QStringLiteral("gpu_state"),
                   QJsonObject{{QStringLiteral("gpu_index"), 1},
                               {QStringLiteral("before"),
                                QJsonObject{{QStringLiteral("sm_clock_mhz"), 1980.0},
                                            {QStringLiteral("temperature_c"), 41.0},
                                            {QStringLiteral("throttle_reasons"), QJsonArray{}}}},
                               {QStringLiteral("after"),
                                QJsonObject{{QStringLiteral("sm_clock_mhz"), 1755.0},
                                            {QStringLiteral("power_w"), 612.5},
                                            {QStringLiteral("throttle_reasons"),
                                             QJsonArray{QStringLiteral("sw_power_cap"),
                                                        QStringLiteral("hw_slowdown")}}}}});
        const auto r = parse(doc);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.record.gpuSamples.size(), size_t(2));
        const auto& before = r.record.gpuSamples[0];
        const auto& after = r.record.gpuSamples[1];
        QCOMPARE(before.phase, std::string("before"));
        QCOMPARE(before.gpuIndex, 1);
        QCOMPARE(*before.smClockMhz, 1980.0);
        QCOMPARE(*before.temperatureC, 41.0);
        QVERIFY(!before.powerW);
        QCOMPARE(before.throttleReasons, std::string());
        QCOMPARE(after.phase, std::string("after"));
        QCOMPARE(*after.powerW, 612.5);
        QCOMPARE(after.throttleReasons, std::string("sw_power_cap,hw_slowdown"));
        // CPU results carry none.
        QVERIFY(parse(correctDoc()).record.gpuSamples.empty());
    }

    void excessiveSpeedupIsSuspicious() {
        const auto r = parse(correctDoc(40.0)); // 20x
        QVERIFY(r.ok);
        QVERIFY(r.record.suspicious);
        QCOMPARE(r.record.findings.back().rule, std::string("excessive-speedup"));
        QCOMPARE(r.record.findings.back().severity, std::string("suspicious"));
    }

    void refusedDocuments_data() {
        QTest::addColumn<QByteArray>("doc");
        QTest::addColumn<QString>("why");
        QTest::newRow("not json") << QByteArray("{ oops") << QStringLiteral("not a JSON object");
        QTest::newRow("array") << QByteArray("[]") << QStringLiteral("not a JSON object");
        auto o = correctDoc();
        o[QStringLiteral("schema")] = QStringLiteral("other/2");
        QTest::newRow("schema") << QJsonDocument(o).toJson() << QStringLiteral("schema");
        o = correctDoc();
        o[QStringLiteral("verdict")] = QStringLiteral("awesome");
        QTest::newRow("verdict") << QJsonDocument(o).toJson() << QStringLiteral("unknown verdict");
        o = correctDoc();
        o[QStringLiteral("correctness")] = trials(3);
        QTest::newRow("too few trials")
            << QJsonDocument(o).toJson() << QStringLiteral("correctness trials");
        o = correctDoc();
        o[QStringLiteral("correctness")] = trials(5, false);
        QTest::newRow("correct but failing")
            << QJsonDocument(o).toJson() << QStringLiteral("correctness trials");
        o = correctDoc();
        o.remove(QStringLiteral("timing"));
        QTest::newRow("no timing") << QJsonDocument(o).toJson() << QStringLiteral("timing");
        o = correctDoc();
        o[QStringLiteral("timing")] =
            QJsonObject{{QStringLiteral("candidate"), series({1.0, -2.0})},
                        {QStringLiteral("eager"), series({1.0})}};
        QTest::newRow("negative sample") << QJsonDocument(o).toJson() << QStringLiteral("positive");
    }
    void refusedDocuments() {
        QFETCH(QByteArray, doc);
        QFETCH(QString, why);
        const auto r = engine::parseHarnessResult(doc, engine::EvalSettings{}, QStringLiteral("h"));
        QVERIFY(!r.ok);
        QVERIFY2(r.error.contains(why), qPrintable(r.error));
    }

    void failureVerdictsKeepTheirDetails() {
        QJsonObject o{{QStringLiteral("schema"), QStringLiteral("kbstudio.eval-result/1")},
                      {QStringLiteral("verdict"), QStringLiteral("build_error")},
                      {QStringLiteral("message"), QStringLiteral("2 compiler errors")},
                      {QStringLiteral("build"),
                       QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")},
                                   {QStringLiteral("log"), QStringLiteral("error: x")},
                                   {QStringLiteral("errors"),
                                    QJsonArray{QJsonObject{{QStringLiteral("line"), 3}}}}}},
                      {QStringLiteral("static_findings"),
                       QJsonArray{QJsonObject{{QStringLiteral("rule"), QStringLiteral("r")},
                                              {QStringLiteral("severity"), QStringLiteral("weird")},
                                              {QStringLiteral("line"), 9}}}}};
        const auto r = parse(o);
        QVERIFY(r.ok);
        QCOMPARE(r.record.attemptVerdict, std::string("build_error"));
        QCOMPARE(r.record.build->status, std::string("failed"));
        QCOMPARE(r.record.build->errorsJson, std::string(R"([{"line":3}])"));
        QCOMPARE(r.record.findings[0].severity,
                 std::string("info")); // unknown severities are not trusted upward
        QCOMPARE(r.record.findings[0].location, std::string("line 9"));
        QVERIFY(!r.record.speedupEager);
        QVERIFY(r.record.timing.empty());
    }

    // timing.comparison (interleaved measurement): its ratio of medians replaces the plain
    // median ratio (2.0 here) when it is usable; its interval, noisy flags and regime are kept.
    void comparisonGivesSpeedupAndInterval_data() {
        QTest::addColumn<QJsonValue>("eager");
        QTest::addColumn<QString>("regime");
        QTest::addColumn<double>("speedup");
        QTest::addColumn<double>("low"); // NaN: no interval stored
        QTest::addColumn<double>("high");
        QTest::addColumn<bool>("noisy");
        QTest::addColumn<QString>("storedRegime");
        const double none = std::numeric_limits<double>::quiet_NaN();
        const auto entry = [](double s, QJsonValue lo, QJsonValue hi, bool noisy) {
            return QJsonValue(QJsonObject{{QStringLiteral("speedup"), s},
                                          {QStringLiteral("ci_low"), lo},
                                          {QStringLiteral("ci_high"), hi},
                                          {QStringLiteral("rel_halfwidth"), 0.02},
                                          {QStringLiteral("noisy"), noisy},
                                          {QStringLiteral("blocks"), 12}});
        };
        QTest::newRow("tight") << entry(1.01, 0.99, 1.03, false) << QStringLiteral("device-bound")
                               << 1.01 << 0.99 << 1.03 << false << QStringLiteral("device-bound");
        QTest::newRow("noisy") << entry(1.30, 1.05, 1.60, true) << QStringLiteral("launch-bound")
                               << 1.30 << 1.05 << 1.60 << true << QStringLiteral("launch-bound");
        QTest::newRow("cpu regime") << entry(0.5, 0.49, 0.51, false) << QStringLiteral("cpu") << 0.5
                                    << 0.49 << 0.51 << false << QStringLiteral("cpu");
        QTest::newRow("null baseline: median ratio")
            << QJsonValue() << QStringLiteral("device-bound") << 2.0 << none << none << false
            << QStringLiteral("device-bound");
        QTest::newRow("interval not around speedup") << entry(1.2, 1.25, 1.4, false) << QString()
                                                     << 1.2 << none << none << false << QString();
        QTest::newRow("missing bounds") << entry(1.2, QJsonValue(), QJsonValue(), false)
                                        << QString() << 1.2 << none << none << false << QString();
        QTest::newRow("non-positive speedup ignored")
            << entry(0.0, 0.0, 0.0, true) << QString() << 2.0 << none << none << false << QString();
        QTest::newRow("unknown regime dropped")
            << entry(1.1, 1.0, 1.2, false) << QStringLiteral("warp") << 1.1 << 1.0 << 1.2 << false
            << QString();
    }

    void comparisonGivesSpeedupAndInterval() {
        QFETCH(QJsonValue, eager);
        QFETCH(QString, regime);
        QFETCH(double, speedup);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(bool, noisy);
        QFETCH(QString, storedRegime);
        QJsonObject doc = correctDoc();
        QJsonObject timing = doc.value(QStringLiteral("timing")).toObject();
        QJsonObject comparison{{QStringLiteral("method"), QStringLiteral("interleaved")},
                               {QStringLiteral("target_rel_halfwidth"), 0.03},
                               {QStringLiteral("eager"), eager},
                               {QStringLiteral("compile"), QJsonValue()}};
        if (!regime.isEmpty())
            comparison.insert(QStringLiteral("regime"), regime);
        timing.insert(QStringLiteral("comparison"), comparison);
        doc.insert(QStringLiteral("timing"), timing);
        const auto r = parse(doc);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(*r.record.speedupEager, speedup);
        QVERIFY(!r.record.speedupCompile); // no compile series: nothing to take from comparison
        const auto& u = r.record.uncertainty;
        QCOMPARE(u.eagerLow.has_value(), !std::isnan(low));
        if (u.eagerLow) {
            QCOMPARE(*u.eagerLow, low);
            QCOMPARE(*u.eagerHigh, high);
        }
        QVERIFY(!u.compileLow);
        QCOMPARE(u.noisyEager, noisy);
        QCOMPARE(u.noisy(), noisy);
        QCOMPARE(QString::fromStdString(u.regime), storedRegime);
        const auto finding =
            std::find_if(r.record.findings.begin(), r.record.findings.end(),
                         [](const db::FindingRow& f) { return f.rule == "noisy-timing"; });
        QCOMPARE(finding != r.record.findings.end(), noisy);
        if (noisy) {
            QCOMPARE(finding->severity, std::string("info"));
            QVERIFY(QString::fromStdString(finding->message).contains(QStringLiteral("±3%")));
            QVERIFY(!r.record.suspicious); // noisy is information, not suspicion
        }
    }

    void comparisonCompileNeedsACompileSeries() {
        QJsonObject doc = correctDoc();
        QJsonObject timing = doc.value(QStringLiteral("timing")).toObject();
        timing.insert(QStringLiteral("compile"), series({3.0, 3.0, 3.0}));
        const QJsonObject compiled{{QStringLiteral("speedup"), 1.45},
                                   {QStringLiteral("ci_low"), 1.40},
                                   {QStringLiteral("ci_high"), 1.50},
                                   {QStringLiteral("noisy"), true}};
        timing.insert(QStringLiteral("comparison"),
                      QJsonObject{{QStringLiteral("method"), QStringLiteral("interleaved")},
                                  {QStringLiteral("regime"), QStringLiteral("device-bound")},
                                  {QStringLiteral("eager"), QJsonValue()},
                                  {QStringLiteral("compile"), compiled}});
        doc.insert(QStringLiteral("timing"), timing);
        const auto r = parse(doc);
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(*r.record.speedupEager, 2.0);    // eager: null, the median ratio stays
        QCOMPARE(*r.record.speedupCompile, 1.45); // not 3.0 / 2.0
        QCOMPARE(*r.record.uncertainty.compileLow, 1.40);
        QVERIFY(r.record.uncertainty.noisyCompile);
        QVERIFY(!r.record.uncertainty.noisyEager);
        QVERIFY(std::any_of(r.record.findings.begin(), r.record.findings.end(),
                            [](const db::FindingRow& f) { return f.rule == "noisy-timing"; }));
    }

    void noComparisonKeepsTheMedianRatio() {
        const auto r = parse(correctDoc(6.0));
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(*r.record.speedupEager, 3.0);
        QVERIFY(!r.record.uncertainty.eagerLow);
        QVERIFY(!r.record.uncertainty.noisy());
        QVERIFY(r.record.uncertainty.regime.empty());
        QVERIFY(r.record.findings.empty());
    }
};

QTEST_GUILESS_MAIN(TestResultParser)
#include "tst_resultparser.moc"
