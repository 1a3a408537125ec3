#include "benchcommon.h"
#include "fakeresourcesdir.h"
#include "run/runengine.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTextStream>

namespace kb::bench {
namespace {

// An instant harness: answers "built", then a correct result with timing, without Python, so
// what is left of an attempt's time is the engine's own work plus two process starts.
const char* kStandIn = R"SH(#!/bin/sh
result="$7"
cat >/dev/null
if [ "$3" = build ]; then
  printf '%s' '{"schema":"kbstudio.eval-result/1","verdict":"built","message":"","static_findings":[],"build":{"status":"ok","seconds":0.0,"cache_key":"k","log":"","errors":[]},"environment":{"python":"3","torch":"1.13.1","device":"cpu","device_name":"Bench CPU"},"harness_seconds":0.0}' >"$result"
else
  printf '%s' '{"schema":"kbstudio.eval-result/1","verdict":"correct","message":"ok","static_findings":[],"build":{"status":"ok","seconds":0.0,"cache_key":"k","log":"","errors":[]},"environment":{"python":"3","torch":"1.13.1","device":"cpu","device_name":"Bench CPU"},"harness_seconds":0.0,"correctness":{"passed":true,"trials":[{"index":0,"passed":true,"max_abs_error":1e-7,"max_rel_error":1e-6,"mismatch_fraction":0.0,"message":""}]},"timing":{"candidate":{"samples_ms":[1.0,1.0,1.0],"wall_ms":3.2},"eager":{"samples_ms":[2.0,2.0,2.0],"wall_ms":6.0},"compile":{"unavailable":"not in this benchmark"}}}' >"$result"
fi
)SH";

} // namespace

int engineOverhead(const QStringList& args) {
    QTextStream out(stdout);
    const int attempts = std::max(30, args.value(0, QStringLiteral("300")).toInt());
    QMap<QString, QString> scripts;
    const int models = 10;
    for (int m = 0; m < models; ++m)
        for (const auto& t : {QStringLiteral("t1"), QStringLiteral("t2"), QStringLiteral("t3")})
            scripts.insert(QStringLiteral("model%1/%2").arg(m).arg(t), QStringLiteral("correct 2"));
    test::FakeResources res(scripts);
    const QString standIn = res.path() + QStringLiteral("/standin.sh");
    {
        QFile f(standIn);
        f.open(QIODevice::WriteOnly);
        f.write(kStandIn);
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }
    qputenv("KBSTUDIO_PYTHON", standIn.toUtf8());

    // What two starts of the stand-in cost on their own (the part that is not the engine).
    std::vector<double> spawn;
    for (int i = 0; i < 40; ++i) {
        QProcess p;
        QElapsedTimer t;
        t.start();
        p.start(standIn, {QStringLiteral("-m"), QStringLiteral("kbharness"),
                          QStringLiteral("build"), QStringLiteral("--request"), QStringLiteral("-"),
                          QStringLiteral("--result"), res.path() + QStringLiteral("/probe.json")});
        p.write("{}");
        p.closeWriteChannel();
        p.waitForFinished();
        spawn.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    }

    engine::RunEngine e(res.dbPath());
    e.ensureDemoCatalog();
    engine::RunSpec spec;
    spec.suite = QStringLiteral("sample");
    for (int m = 0; m < models; ++m)
        spec.models << QStringLiteral("model%1").arg(m);
    spec.samples = std::max(1, attempts / (models * 3));
    spec.settings.device = QStringLiteral("cpu");
    spec.settings.buildJobs = 1; // one attempt at a time: its wall time is all its own
    spec.settings.correctnessTrials = 1;
    const db::Id run = e.createRun(spec);
    std::vector<double> perAttempt;
    QElapsedTimer clock;
    qint64 last = 0;
    QObject::connect(&e, &engine::RunEngine::attemptFinished, &e,
                     [&](const engine::AttemptResult&) {
                         const qint64 now = clock.nsecsElapsed();
                         perAttempt.push_back(static_cast<double>(now - last) / 1e6);
                         last = now;
                     });
    QSignalSpy done(&e, &engine::RunEngine::runFinished);
    clock.start();
    e.start(run);
    if (!done.wait(600000) || done.at(0).at(1).toString() != QLatin1String("finished")) {
        out << "the run did not finish" << Qt::endl;
        return 1;
    }
    const double wall = static_cast<double>(clock.elapsed()) / 1000.0;
    const int n = static_cast<int>(perAttempt.size());
    if (!perAttempt.empty())
        perAttempt.erase(perAttempt.begin()); // the first includes start-up
    const double perMedian = median(perAttempt);
    const double spawnMedian = median(spawn);
    // Builds run ahead of evaluations, so the gaps between finished attempts are one evaluation
    // each; the whole-run figure covers both phases.
    const double perAttemptWall = wall * 1000.0 / n;
    Table table({QStringLiteral("measure"), QStringLiteral("value")});
    table.add({QStringLiteral("attempts (one build or evaluation at a time)"), QString::number(n)});
    table.add({QStringLiteral("run wall time"), fmt(wall, 2) + QStringLiteral(" s")});
    table.add({QStringLiteral("one stand-in harness start (median of 40)"),
               fmt(spawnMedian) + QStringLiteral(" ms")});
    table.add({QStringLiteral("wall time per attempt (run wall / attempts)"),
               fmt(perAttemptWall) + QStringLiteral(" ms")});
    table.add(
        {QStringLiteral(
             "engine overhead per attempt: wall / attempts - 2 harness starts (target < 50 ms)"),
         fmt(perAttemptWall - 2 * spawnMedian) + QStringLiteral(" ms")});
    table.add({QStringLiteral("gap between finished attempts in the evaluation phase, median (1 "
                              "harness start + engine)"),
               fmt(perMedian) + QStringLiteral(" ms")});
    table.print(out);
    return 0;
}

} // namespace kb::bench
