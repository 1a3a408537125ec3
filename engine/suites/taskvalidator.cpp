#include "taskvalidator.h"

#include "db/catalogrepository.h"
#include "db/database.h"
#include "eval/harnessprocess.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

namespace kb::engine {

namespace {

QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

TaskValidationResult parseValidationReport(const QByteArray& json, const db::TaskRow& task) {
    TaskValidationResult r;
    r.taskId = task.id;
    r.taskKey = toQ(task.key);
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        r.error = QStringLiteral("the harness wrote no readable report");
        return r;
    }
    const QJsonObject o = doc.object();
    QStringList errors;
    for (const auto& e : o.value(QStringLiteral("errors")).toArray())
        errors << e.toString();
    r.ok = o.value(QStringLiteral("ok")).toBool() && errors.isEmpty();
    if (!r.ok)
        r.error = errors.isEmpty() ? QStringLiteral("the reference did not run")
                                   : errors.join(QStringLiteral("; "));
    for (const auto& f : o.value(QStringLiteral("flags")).toArray()) {
        const QJsonObject fo = f.toObject();
        r.flags << fo.value(QStringLiteral("flag")).toString();
        r.messages << fo.value(QStringLiteral("message")).toString();
    }
    return r;
}

TaskValidator::TaskValidator(db::Database& db, QString device, QObject* parent)
    : QObject(parent)
    , m_db(db)
    , m_device(std::move(device)) {}

TaskValidator::~TaskValidator() {
    cancel();
}

void TaskValidator::start(const std::vector<db::TaskRow>& tasks) {
    for (const auto& t : tasks)
        m_queue.enqueue(t);
    next();
}

void TaskValidator::cancel() {
    m_queue.clear();
    if (m_process)
        m_process->kill();
}

void TaskValidator::next() {
    if (m_queue.isEmpty()) {
        Q_EMIT finished(m_validated, m_flagged, m_failed);
        return;
    }
    const db::TaskRow task = m_queue.dequeue();
    const QString dir = QDir::tempPath() + QStringLiteral("/kbstudio-validate-%1-%2")
                                               .arg(QCoreApplication::applicationPid())
                                               .arg(task.id);
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    QFile f(dir + QStringLiteral("/task.py"));
    if (!f.open(QIODevice::WriteOnly) || f.write(task.source.c_str()) < 0) {
        TaskValidationResult r;
        r.taskId = task.id;
        r.taskKey = toQ(task.key);
        r.error = QStringLiteral("cannot write the task to %1").arg(dir);
        ++m_failed;
        Q_EMIT taskValidated(r);
        QDir(dir).removeRecursively();
        QMetaObject::invokeMethod(this, &TaskValidator::next, Qt::QueuedConnection);
        return;
    }
    f.close();
    auto* proc = new HarnessProcess(this);
    m_process = proc;
    connect(proc, &HarnessProcess::finished, this,
            [this, task, dir, proc](const HarnessOutcome& outcome) {
                proc->deleteLater();
                onFinished(task, dir, outcome);
            });
    proc->start({QStringLiteral("validate-task"), dir + QStringLiteral("/task.py"),
                 QStringLiteral("--device"), m_device, QStringLiteral("--result"),
                 dir + QStringLiteral("/report.json")},
                dir, static_cast<int>(m_timeoutSeconds * 1000));
}

void TaskValidator::onFinished(const db::TaskRow& task, const QString& dir,
                               const HarnessOutcome& outcome) {
    QFile f(dir + QStringLiteral("/report.json"));
    const QByteArray bytes = f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    f.close();
    QDir(dir).removeRecursively();
    TaskValidationResult r = parseValidationReport(bytes, task);
    if (bytes.isEmpty()) {
        r.ok = false;
        r.error =
            outcome.timedOut
                ? QStringLiteral("the reference did not finish within %1 s").arg(m_timeoutSeconds)
            : !outcome.error.isEmpty()
                ? outcome.error
                : QStringLiteral("the harness wrote no report (exit code %1)")
                      .arg(outcome.exitCode);
    }
    if (r.ok) {
        ++m_validated;
        if (!r.flags.isEmpty())
            ++m_flagged;
        QJsonArray flags;
        for (int i = 0; i < r.flags.size(); ++i)
            flags.append(QJsonObject{{QStringLiteral("flag"), r.flags[i]},
                                     {QStringLiteral("message"), r.messages[i]}});
        db::TaskValidationRow row;
        row.taskId = task.id;
        row.device = m_device.startsWith(QLatin1String("cuda")) ? "cuda" : "cpu";
        row.flagsJson = QJsonDocument(flags).toJson(QJsonDocument::Compact).toStdString();
        row.detailsJson =
            bytes.isEmpty()
                ? std::string("{}")
                : QJsonDocument::fromJson(bytes).toJson(QJsonDocument::Compact).toStdString();
        db::CatalogRepository(m_db.connection()).storeTaskValidation(row);
    } else {
        ++m_failed;
    }
    Q_EMIT taskValidated(r);
    next();
}

} // namespace kb::engine
