// Engine benchmarks (not timed tests): see bench/README.md.
//   bench_engine overhead [ATTEMPTS]         engine overhead per attempt with an instant stand-in
//   harness bench_engine db [FILE] [ATTEMPTS]         1,000,000 stored attempts: open, leaderboard,
//   result pages bench_engine pool [SAMPLES] [LATENCY_MS] [BUILDS] evaluation-pool busy % with slow
//   generation and real builds bench_engine export-json [FILE] [OUT]    JSON export of every
//   attempt of the `db` database: time, peak RSS
#include "benchcommon.h"

#include <QCoreApplication>
#include <QTextStream>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QStringList args = QCoreApplication::arguments().mid(1);
    const QString what = args.isEmpty() ? QString() : args.takeFirst();
    if (what == QLatin1String("db"))
        return kb::bench::dbScale(args);
    if (what == QLatin1String("overhead"))
        return kb::bench::engineOverhead(args);
    if (what == QLatin1String("export-json"))
        return kb::bench::jsonExport(args);
    if (what == QLatin1String("export-json-child"))
        return kb::bench::jsonExportChild(args);
    if (what == QLatin1String("pool"))
        return kb::bench::poolUtilisation(args);
    QTextStream(stderr)
        << "usage: bench_engine overhead|db|pool|export-json [...]; see bench/README.md\n";
    return 2;
}
