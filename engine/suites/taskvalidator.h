#pragma once
// Runs each task's reference through `kbharness validate-task` (one child process per task,
// with a timeout) and stores what it finds in task_validations: tasks whose output an
// all-zeros, constant, input- or weight-ignoring answer would match are flagged, and the
// harness then judges candidates for them strictly.

#include "db/records.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QQueue>
#include <QStringList>

namespace kb::db {
class Database;
}

namespace kb::engine {

class HarnessProcess;
struct HarnessOutcome;

struct TaskValidationResult {
    db::Id taskId = 0;
    QString taskKey;
    bool ok = false;      // the reference ran (flags or not)
    QStringList flags;    // e.g. "below-tolerance"
    QStringList messages; // one per flag, the harness's explanation
    QString error;        // when !ok: why the task cannot be used
};

class TaskValidator : public QObject {
    Q_OBJECT
public:
    TaskValidator(db::Database& db, QString device, QObject* parent = nullptr);
    ~TaskValidator() override;

    void setTimeoutSeconds(double seconds) { m_timeoutSeconds = seconds; }
    // Validates the tasks one after another; returns at once.
    void start(const std::vector<db::TaskRow>& tasks);
    void cancel();

Q_SIGNALS:
    void taskValidated(const kb::engine::TaskValidationResult& result);
    void finished(int validated, int flagged, int failed);

private:
    void next();
    void onFinished(const db::TaskRow& task, const QString& dir, const HarnessOutcome& outcome);

    db::Database& m_db;
    QString m_device;
    double m_timeoutSeconds = 600;
    QQueue<db::TaskRow> m_queue;
    QPointer<HarnessProcess> m_process;
    int m_validated = 0;
    int m_flagged = 0;
    int m_failed = 0;
};

// Parses a validate-task report (the harness's JSON) into a result; never throws.
TaskValidationResult parseValidationReport(const QByteArray& json, const db::TaskRow& task);

} // namespace kb::engine

Q_DECLARE_METATYPE(kb::engine::TaskValidationResult)
