// kbstudio-cli export and kbstudio-cli baselines, run as a user would.

#include "reportfixture.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kb;

namespace {

struct Result {
    int code = -1;
    QString out;
    QString err;
};

Result cli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(KBSTUDIO_CLI), args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

QStringList csvColumn(const QString& path, const QString& name) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const auto index = lines.takeFirst().split(QLatin1Char(',')).indexOf(name);
    QStringList values;
    for (const auto& line : lines)
        values << line.split(QLatin1Char(','))[index];
    values.removeDuplicates();
    return values;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = path(QStringLiteral("fixture.db"));
        test::ReportFixture fixture(m_db.toStdString());
    }

    void exportsFilteredRows() {
        const QString out = path(QStringLiteral("a.csv"));
        auto r =
            cli({QStringLiteral("export"), QStringLiteral("--db"), m_db, QStringLiteral("--format"),
                 QStringLiteral("csv"), QStringLiteral("--out"), out, QStringLiteral("--models"),
                 QStringLiteral("model-b"), QStringLiteral("--levels"), QStringLiteral("2")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(csvColumn(out, QStringLiteral("model")), QStringList{QStringLiteral("model-b")});
        QCOMPARE(csvColumn(out, QStringLiteral("level")), QStringList{QStringLiteral("2")});

        r = cli({QStringLiteral("export"), QStringLiteral("--db"), m_db, QStringLiteral("--format"),
                 QStringLiteral("samples-csv"), QStringLiteral("--out"), out,
                 QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("--verdicts"),
                 QStringLiteral("correct")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(csvColumn(out, QStringLiteral("kind")),
                 (QStringList{QStringLiteral("candidate"), QStringLiteral("eager"),
                              QStringLiteral("compile")}));
    }

    void writesEveryFormat_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QByteArray>("start");
        QTest::newRow("html") << QStringLiteral("html") << QByteArray("<?xml");
        QTest::newRow("pdf") << QStringLiteral("pdf") << QByteArray("%PDF-");
        QTest::newRow("markdown") << QStringLiteral("markdown") << QByteArray("Settings:");
        QTest::newRow("leaderboard-csv")
            << QStringLiteral("leaderboard-csv") << QByteArray("model,level,");
        QTest::newRow("csv") << QStringLiteral("csv") << QByteArray("attempt_id,");
        QTest::newRow("json") << QStringLiteral("json") << QByteArray("{");
        QTest::newRow("samples-csv") << QStringLiteral("samples-csv") << QByteArray("attempt_id,");
        QTest::newRow("kernelbench") << QStringLiteral("kernelbench") << QByteArray("{");
    }

    void writesEveryFormat() {
        QFETCH(QString, format);
        QFETCH(QByteArray, start);
        const QString out = path(QStringLiteral("report.") + format);
        const auto r = cli({QStringLiteral("export"), QStringLiteral("--db"), m_db,
                            QStringLiteral("--format"), format, QStringLiteral("--out"), out,
                            QStringLiteral("--models"), QStringLiteral("model-a")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("wrote ")));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(f.readAll().startsWith(start), qPrintable(format));
    }

    void errorsAreClear_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown run")
            << QStringList{QStringLiteral("--run"),    QStringLiteral("42"),
                           QStringLiteral("--format"), QStringLiteral("csv"),
                           QStringLiteral("--out"),    QStringLiteral("-")}
            << 1 << QStringLiteral("error: no run with id 42");
        QTest::newRow("unwritable out")
            << QStringList{QStringLiteral("--format"), QStringLiteral("json"),
                           QStringLiteral("--out"), QStringLiteral("/nonexistent-folder/x.json")}
            << 1 << QStringLiteral("error: cannot write '/nonexistent-folder/x.json'");
        QTest::newRow("unknown format")
            << QStringList{QStringLiteral("--format"), QStringLiteral("xlsx"),
                           QStringLiteral("--out"), QStringLiteral("x")}
            << 2 << QStringLiteral("error: --format must be one of");
        QTest::newRow("no out") << QStringList{QStringLiteral("--format"), QStringLiteral("csv")}
                                << 2 << QStringLiteral("error: --out FILE is required");
        QTest::newRow("unknown model")
            << QStringList{QStringLiteral("--format"), QStringLiteral("csv"),
                           QStringLiteral("--out"),    QStringLiteral("-"),
                           QStringLiteral("--models"), QStringLiteral("nope")}
            << 1 << QStringLiteral("error: no model 'nope'");
        QTest::newRow("kernelbench with two models")
            << QStringList{QStringLiteral("--format"), QStringLiteral("kernelbench"),
                           QStringLiteral("--out"), QStringLiteral("-")}
            << 1 << QStringLiteral("error: the KernelBench format holds one model per file");
        QTest::newRow("compare one model")
            << QStringList{QStringLiteral("--format"),  QStringLiteral("markdown"),
                           QStringLiteral("--out"),     QStringLiteral("-"),
                           QStringLiteral("--compare"), QStringLiteral("model-a")}
            << 2 << QStringLiteral("error: --compare takes two models");
    }

    void errorsAreClear() {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const auto r =
            cli(QStringList{QStringLiteral("export"), QStringLiteral("--db"), m_db} + args);
        QCOMPARE(r.code, code);
        QVERIFY2(r.err.startsWith(message), qPrintable(r.err));
    }

    void missingDatabaseIsNotCreated() {
        const QString db = path(QStringLiteral("missing.db"));
        const auto r =
            cli({QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--format"),
                 QStringLiteral("csv"), QStringLiteral("--out"), QStringLiteral("-")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("does not exist")), qPrintable(r.err));
        QVERIFY(!QFile::exists(db));
    }

    void stdoutExport() {
        const auto r =
            cli({QStringLiteral("export"), QStringLiteral("--db"), m_db, QStringLiteral("--format"),
                 QStringLiteral("markdown"), QStringLiteral("--out"), QStringLiteral("-")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains(QStringLiteral("| model-a ")));
    }

    void compareAddsThePairedSection() {
        const auto r =
            cli({QStringLiteral("export"), QStringLiteral("--db"), m_db, QStringLiteral("--format"),
                 QStringLiteral("markdown"), QStringLiteral("--out"), QStringLiteral("-"),
                 QStringLiteral("--compare"), QStringLiteral("model-b,model-a")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("## Paired comparison: model-b (A) vs model-a (B)")));
        const auto plain =
            cli({QStringLiteral("export"), QStringLiteral("--db"), m_db, QStringLiteral("--format"),
                 QStringLiteral("markdown"), QStringLiteral("--out"), QStringLiteral("-")});
        QVERIFY(!plain.out.contains(QStringLiteral("Paired comparison")));
    }

    void importsBaselines() {
        QDir().mkpath(path(QStringLiteral("baselines/GPU_X")));
        QFile f(path(QStringLiteral("baselines/GPU_X/baseline_time_torch.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"({"level1": {"1_Square_matmul.py": {"mean": 3.5}, "7_Nothing.py": {"mean": 1.0}}})");
        f.close();
        auto r = cli({QStringLiteral("baselines"), QStringLiteral("import"),
                      path(QStringLiteral("baselines")), QStringLiteral("--db"), m_db});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(
            r.out.startsWith(QStringLiteral("stored 1 baselines from 1 files (devices: GPU_X)")),
            qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("1 of 2 entries have no matching task")));

        r = cli({QStringLiteral("baselines"), QStringLiteral("import"),
                 path(QStringLiteral("nowhere")), QStringLiteral("--db"), m_db});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("is not a folder")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
