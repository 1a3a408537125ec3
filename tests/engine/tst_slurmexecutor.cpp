// The Slurm backend against stand-ins for sbatch, squeue and scontrol (the real round trip is
// tests/slurm): the request reaches the job through a private file that is gone before the
// harness starts, results land in the same database, and a job lost to a node failure is
// submitted again and counted as a transient failure.
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "fakeresourcesdir.h"
#include "run/runengine.h"
#include "scheduler/slurmexecutor.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {

const char* kSbatch = R"SH(#!/bin/sh
# sbatch stand-in: records its arguments and the request file's mode, runs the job in the background.
state="$FAKE_SLURM_DIR"
for a; do script="$a"; done
name=""
for a; do case "$a" in --job-name=*) name="${a#--job-name=}";; esac; done
id=$(( $(cat "$state/next" 2>/dev/null || echo 100) + 1 ))
echo "$id" > "$state/next"
echo "$*" >> "$state/sbatch.log"
stat -c '%a' "$(dirname "$script")/request.json" >> "$state/modes"
stat -c '%a' "$(dirname "$script")" >> "$state/dirmodes"
if [ "$FAKE_SLURM_MODE" = nodefail-once ] && [ ! -e "$state/failed-$name" ]; then
  touch "$state/failed-$name" "$state/nodefail-$id"
  echo "$id"
  exit 0
fi
( sh "$script" >/dev/null 2>&1 </dev/null; touch "$state/done-$id" ) >/dev/null 2>&1 </dev/null &
echo "$id;cluster"
)SH";

const char* kSqueue = R"SH(#!/bin/sh
# squeue -h -j ID -o %T
state="$FAKE_SLURM_DIR"
id="$3"
if [ -e "$state/next" ] && [ ! -e "$state/done-$id" ] && [ ! -e "$state/nodefail-$id" ]; then echo RUNNING; fi
exit 0
)SH";

const char* kScontrol = R"SH(#!/bin/sh
# scontrol show job ID
state="$FAKE_SLURM_DIR"
id="$3"
if [ -e "$state/nodefail-$id" ]; then echo "JobId=$id JobName=x"; echo "   JobState=NODE_FAIL Reason=NodeDown"; exit 0; fi
if [ -e "$state/done-$id" ]; then echo "JobId=$id JobName=x"; echo "   JobState=COMPLETED Reason=None"; exit 0; fi
echo "slurm_load_jobs error: Invalid job id specified" >&2
exit 1
)SH";

const char* kScancel = "#!/bin/sh\necho \"$*\" >> \"$FAKE_SLURM_DIR/scancel.log\"\n";

class FakeSlurm {
public:
    explicit FakeSlurm(const QString& mode) {
        const std::pair<const char*, const char*> tools[] = {{"sbatch", kSbatch},
                                                             {"squeue", kSqueue},
                                                             {"scontrol", kScontrol},
                                                             {"scancel", kScancel}};
        for (const auto& [name, text] : tools) {
            QFile f(m_dir.filePath(QString::fromLatin1(name)));
            f.open(QIODevice::WriteOnly);
            f.write(text);
            f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                             QFileDevice::ExeOwner);
        }
        qputenv("KBSTUDIO_SLURM_BIN", m_dir.path().toUtf8());
        qputenv("FAKE_SLURM_DIR", m_dir.path().toUtf8());
        qputenv("FAKE_SLURM_MODE", mode.toUtf8());
        qputenv("KBSTUDIO_SLURM_POLL_MS", "100");
    }
    ~FakeSlurm() {
        for (const char* v :
             {"KBSTUDIO_SLURM_BIN", "FAKE_SLURM_DIR", "FAKE_SLURM_MODE", "KBSTUDIO_SLURM_POLL_MS"})
            qunsetenv(v);
    }
    QStringList lines(const QString& file) const {
        QFile f(m_dir.filePath(file));
        f.open(QIODevice::ReadOnly);
        return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private:
    QTemporaryDir m_dir;
};

engine::RunSpec slurmSpec() {
    engine::RunSpec s;
    s.suite = QStringLiteral("sample");
    s.models = {QStringLiteral("m")};
    s.settings.device = QStringLiteral("cpu");
    s.settings.timeoutSeconds = 10;
    s.settings.buildTimeoutSeconds = 10;
    s.settings.backend = QStringLiteral("slurm");
    s.settings.slurmPartition = QStringLiteral("gpu-a");
    s.settings.retryBaseSeconds = 0.05;
    return s;
}

} // namespace

class TestSlurmExecutor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jobScriptReadsTheRequestFromAPrivateFileItDeletes() {
        engine::ExecRequest r;
        r.phase = QStringLiteral("evaluate");
        r.workDir = QStringLiteral("/shared/work/attempt 7");
        r.resultPath = QStringLiteral("/shared/results/abc.json");
        r.label = QStringLiteral("attempt-7");
        const QString script = QString::fromUtf8(
            engine::SlurmExecutor::jobScript(r, QStringLiteral("/shared/slurm/job'1")));
        QVERIFY2(script.contains(QStringLiteral("exec 3<'/shared/slurm/job'\\''1'/request.json")),
                 qPrintable(script));
        QVERIFY(script.indexOf(QStringLiteral("rm -f")) <
                script.indexOf(QStringLiteral("-m kbharness")));
        QVERIFY(script.contains(QStringLiteral(
            "-m kbharness evaluate --request - --result '/shared/results/abc.json' <&3")));
        QVERIFY(script.contains(QStringLiteral("cd '/shared/work/attempt 7'")));
    }

    void runThroughSlurmStoresVerdictsInTheSameDatabase() {
        FakeSlurm slurm(QStringLiteral("run"));
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 3.0")},
                                 {QStringLiteral("m/t2"), QStringLiteral("incorrect")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = slurmSpec();
        s.tasks = {QStringLiteral("t1"), QStringLiteral("t2")};
        const db::Id run = e.createRun(s);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        e.start(run);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("finished"));
        auto& c = e.database().connection();
        QCOMPARE(db::QueueRepository(c).runBackend(run), std::string("slurm"));
        std::map<std::string, std::string> verdicts;
        for (const auto& a : db::RunRepository(c).attempts(run))
            verdicts[a.taskKey] = a.verdict;
        QCOMPARE(verdicts.at("t1"), std::string("correct"));
        QCOMPARE(verdicts.at("t2"), std::string("incorrect"));
        // Evaluations went to Slurm (builds stay local), with the partition, no GPU in CPU mode,
        // and a whole node for CPU timing.
        const auto submitted = slurm.lines(QStringLiteral("sbatch.log"));
        QCOMPARE(submitted.size(), 2);
        for (const auto& line : submitted) {
            QVERIFY2(line.contains(QStringLiteral("--partition=gpu-a")), qPrintable(line));
            QVERIFY(line.contains(QStringLiteral("--exclusive")));
            QVERIFY(!line.contains(QStringLiteral("--gres")));
        }
        // The request (with the secret seed) sat in a file only the user can read, in a folder only
        // the user can enter, and is gone afterwards.
        QCOMPARE(slurm.lines(QStringLiteral("modes")),
                 (QStringList{QStringLiteral("600"), QStringLiteral("600")}));
        QCOMPARE(slurm.lines(QStringLiteral("dirmodes")),
                 (QStringList{QStringLiteral("700"), QStringLiteral("700")}));
        const QDir spool(res.path() + QStringLiteral("/test.work/slurm"));
        QVERIFY(spool.exists());
        QVERIFY2(spool.entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty(),
                 qPrintable(spool.entryList().join(QLatin1Char(' '))));
    }

    void jobLostToANodeFailureIsSubmittedAgain() {
        FakeSlurm slurm(QStringLiteral("nodefail-once"));
        test::FakeResources res({{QStringLiteral("m/t1"), QStringLiteral("correct 2.0")}});
        engine::RunEngine e(res.dbPath());
        e.ensureDemoCatalog();
        auto s = slurmSpec();
        s.tasks = {QStringLiteral("t1")};
        const db::Id run = e.createRun(s);
        QSignalSpy done(&e, &engine::RunEngine::runFinished);
        QSignalSpy log(&e, &engine::RunEngine::logLine);
        e.start(run);
        QVERIFY(done.wait(30000));
        auto& c = e.database().connection();
        const auto a = db::RunRepository(c).attempts(run).at(0);
        QCOMPARE(a.verdict, std::string("correct"));
        QCOMPARE(db::QueueRepository(c).tries(a.id), 1);
        QCOMPARE(slurm.lines(QStringLiteral("sbatch.log")).size(), 2);
        bool said = false;
        for (const auto& l : log)
            said = said || l.at(0).toString().contains(QStringLiteral("NODE_FAIL"));
        QVERIFY(said);
        db::Statement q(c, "SELECT count(*) FROM evaluations");
        QVERIFY(q.step());
        QCOMPARE(q.int64(0), std::int64_t(1));
        // The lost job's files (its request among them) do not stay behind either.
        QVERIFY(QDir(res.path() + QStringLiteral("/test.work/slurm"))
                    .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                    .isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSlurmExecutor)
#include "tst_slurmexecutor.moc"
