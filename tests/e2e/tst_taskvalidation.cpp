// Task validation on import through the real harness: weak tasks are flagged and stored,
// a task whose reference cannot run is reported, sound tasks pass unflagged.

#include "clirunner.h"
#include "db/catalogrepository.h"
#include "db/database.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using kb::test::runCli;

namespace {

void writeTask(const QString& path, const QByteArray& forward, const QByteArray& inputs) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("import torch\nimport torch.nn as nn\n\n"
            "class Model(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n\n"
            "    def forward(self, x):\n"
            "        " +
            forward +
            "\n\n"
            "def get_inputs():\n"
            "    return [" +
            inputs +
            "]\n\n"
            "def get_init_inputs():\n"
            "    return []\n");
}

} // namespace

class TaskValidationTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void flagsWeakTasksOnImport() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString suite = dir.filePath(QStringLiteral("weak"));
        QVERIFY(QDir().mkpath(suite + QStringLiteral("/level1")));
        // Softmax of nearly equal values over 50,000 elements: every output is about 2e-5, below
        // atol 1e-4.
        writeTask(suite + QStringLiteral("/level1/1_Tiny_Softmax.py"),
                  "return torch.softmax(x, dim=1)", "torch.randn(4, 50000) * 0.01");
        writeTask(suite + QStringLiteral("/level1/2_Ignores_Input.py"),
                  "return torch.ones_like(x) * 3.0", "torch.randn(8, 64)");
        writeTask(suite + QStringLiteral("/level1/3_ReLU.py"), "return torch.relu(x)",
                  "torch.randn(8, 64)");
        writeTask(suite + QStringLiteral("/level1/4_Broken.py"),
                  "raise RuntimeError('reference is broken')", "torch.randn(8, 64)");
        const QString db = dir.filePath(QStringLiteral("v.db"));
        const auto r = runCli({QStringLiteral("suite"), QStringLiteral("import"), suite,
                               QStringLiteral("--validate"), QStringLiteral("--db"), db,
                               QStringLiteral("--timeout"), QStringLiteral("120")});
        QCOMPARE(r.exitCode, 1); // one task could not run
        QVERIFY2(r.out.contains(QStringLiteral("imported suite 'weak': 4 tasks")),
                 qPrintable(r.out + r.err));
        QVERIFY2(
            r.out.contains(QRegularExpression(QStringLiteral("L1_1: FLAGGED below-tolerance"))),
            qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression(
                     QStringLiteral("L1_2: FLAGGED near-constant, input-insensitive"))),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("L1_3: ok"))), qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression(
                     QStringLiteral("L1_4: cannot validate: .*reference is broken"))),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral(
            "validated 3 task(s) on cpu: 2 flagged (judged strictly), 1 could not run")));

        // Stored per task and device, and listed by `suite flagged`.
        kb::db::Database database(db.toStdString());
        kb::db::CatalogRepository catalog(database.connection());
        const auto s = catalog.suiteByName("weak");
        QVERIFY(s);
        const auto flagged = catalog.flaggedTasks(s->id);
        QCOMPARE(flagged.size(), size_t(2));
        for (const auto& v : flagged) {
            QCOMPARE(QString::fromStdString(v.device), QStringLiteral("cpu"));
            const auto flags =
                QJsonDocument::fromJson(QByteArray::fromStdString(v.flagsJson)).array();
            QVERIFY(!flags.isEmpty());
            QVERIFY(
                !flags.first().toObject().value(QStringLiteral("message")).toString().isEmpty());
        }
        int unflagged = 0;
        for (const auto& t : catalog.tasks(s->id)) {
            const auto vs = catalog.taskValidations(t.id);
            if (t.name.find("ReLU") != std::string::npos) {
                QCOMPARE(vs.size(), size_t(1));
                QCOMPARE(QString::fromStdString(vs.front().flagsJson), QStringLiteral("[]"));
                ++unflagged;
            }
            if (t.name.find("Broken") != std::string::npos)
                QVERIFY(vs.empty()); // nothing stored for a reference that did not run
        }
        QCOMPARE(unflagged, 1);
        const auto listed = runCli({QStringLiteral("suite"), QStringLiteral("flagged"),
                                    QStringLiteral("weak"), QStringLiteral("--db"), db});
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(listed.out.count(QLatin1Char('\n')), 2);
        QVERIFY(listed.out.contains(QStringLiteral("below-tolerance")));

        // Validating again replaces the stored result instead of adding one.
        const auto again = runCli({QStringLiteral("suite"), QStringLiteral("validate"),
                                   QStringLiteral("weak"), QStringLiteral("--db"), db});
        QCOMPARE(again.exitCode, 1);
        QCOMPARE(catalog.flaggedTasks(s->id).size(), size_t(2));
    }
};

QTEST_GUILESS_MAIN(TaskValidationTest)
#include "tst_taskvalidation.moc"
