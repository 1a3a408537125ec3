// JSON export of every attempt of a large database: time and peak memory of the export alone,
// measured in a fresh process of this program (fork + exec, getrusage of the child), so that
// what generating the database cost does not count.
#include "report/jsonexport.h"

#include "benchcommon.h"
#include "core/error.h"
#include "db/database.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QTextStream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kb::bench {

// bench_engine export-json-child DB OUT: the export alone; prints the attempts written.
int jsonExportChild(const QStringList& args) {
    db::Database database(args.value(0).toStdString(), db::Database::Access::ReadOnly);
    QSaveFile file(args.value(1));
    if (!file.open(QIODevice::WriteOnly))
        return 1;
    const qint64 written = report::writeJsonExport(database.connection(), {}, file);
    if (!file.commit())
        return 1;
    QTextStream(stdout) << written << Qt::endl;
    return 0;
}

namespace {

struct ChildRun {
    int status = -1;
    double seconds = 0;
    double peakMb = 0;
};

ChildRun runChild(const QStringList& args) {
    const QByteArray self = QFile::encodeName(QCoreApplication::applicationFilePath());
    std::vector<QByteArray> storage{self};
    for (const auto& a : args)
        storage.push_back(a.toLocal8Bit());
    std::vector<char*> argv;
    for (auto& s : storage)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    ChildRun r;
    QElapsedTimer timer;
    timer.start();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execv(self.constData(), argv.data());
        ::_exit(127);
    }
    int status = 0;
    struct rusage usage {};
    if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid)
        return r;
    r.seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.peakMb = static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
    return r;
}

} // namespace

// bench_engine export-json [DB] [OUT]: the database of `bench_engine db` (generated there).
int jsonExport(const QStringList& args) {
    QTextStream out(stdout);
    const QString path = args.value(0, QStringLiteral("/tmp/kbstudio-bench-1m.kbdb"));
    const QString target = args.value(1, QStringLiteral("/tmp/kbstudio-bench-export.json"));
    if (!QFileInfo::exists(path)) {
        QTextStream(stderr) << path << " does not exist: generate it first with `bench_engine db "
                            << path << "`\n";
        return 2;
    }
    std::int64_t attempts = 0;
    {
        db::Database d(path.toStdString(), db::Database::Access::ReadOnly);
        db::Statement q(d.connection(), "SELECT count(*) FROM attempts");
        q.step();
        attempts = q.int64(0);
    }
    Table table({QStringLiteral("operation"), QStringLiteral("seconds"),
                 QStringLiteral("peak RSS MB"), QStringLiteral("output MB"),
                 QStringLiteral("target")});
    for (int i = 0; i < 2; ++i) {
        const ChildRun r = runChild({QStringLiteral("export-json-child"), path, target});
        if (r.status != 0) {
            QTextStream(stderr) << "the export failed (exit " << r.status << ")\n";
            return 1;
        }
        table.add(
            {QStringLiteral("export --format json, every attempt (streamed), run %1").arg(i + 1),
             fmt(r.seconds), fmt(r.peakMb, 0),
             fmt(static_cast<double>(QFileInfo(target).size()) / 1e6, 0),
             QStringLiteral("< 500 MB")});
    }
    out << "database: " << attempts << " attempts, "
        << QString::number(QFileInfo(path).size() / 1e6, 'f', 0) << " MB" << Qt::endl;
    table.print(out);
    QFile::remove(target);
    return 0;
}

} // namespace kb::bench
