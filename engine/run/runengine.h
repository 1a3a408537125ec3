#pragma once
// The engine facade: creates runs and drives their attempts to completion in the background
// (generation -> static check and build, in parallel -> evaluation, one at a time per device).
// Everything is stored as it happens; a stopped engine resumes a run where it stopped.

#include "runtypes.h"

#include "db/database.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QQueue>
#include <QElapsedTimer>

#include <memory>

namespace kb::engine {

class HarnessProcess;
struct HarnessOutcome;
class Provider;

class RunEngine : public QObject {
    Q_OBJECT
public:
    // Opens (creating or migrating) the database; throws Error/db::Error with a readable message.
    explicit RunEngine(const QString& dbPath, QObject* parent = nullptr);
    ~RunEngine() override;

    db::Database& database() { return *m_db; }

    // Registers the offline demo provider with its pseudo-models and imports the sample suite.
    void ensureDemoCatalog();
    // Creates a run and its queued attempts. Throws Error on unknown suite/models.
    db::Id createRun(const RunSpec& spec);
    // Starts (or resumes) a run; returns at once, work happens in the event loop.
    void start(db::Id runId);
    void cancel();
    bool isRunning() const { return m_runId != 0; }
    RunProgress progressSnapshot();

Q_SIGNALS:
    void attemptFinished(const kb::engine::AttemptResult& result);
    void progress(const kb::engine::RunProgress& progress);
    void runFinished(qint64 runId, const QString& status, const QString& message);
    void logLine(const QString& line);

private:
    struct Job;
    void pump();
    void prepare(db::Id attemptId);
    void onPhaseFinished(const std::shared_ptr<Job>& job, bool buildPhase, const HarnessOutcome& outcome);
    void finishWithRecord(const std::shared_ptr<Job>& job, db::EvaluationRecord record);
    void finishWithoutResult(const std::shared_ptr<Job>& job, const QString& verdict, const QString& message);
    QByteArray requestJson(const Job& job) const;
    void startPhase(const std::shared_ptr<Job>& job, bool buildPhase);
    Provider* providerFor(const QString& kind);
    void emitProgress();
    void finishRun(const QString& status, const QString& message);

    std::unique_ptr<db::Database> m_db;
    QString m_workRoot;
    db::Id m_runId = 0;
    EvalSettings m_settings;
    QQueue<db::Id> m_pending;
    QQueue<std::shared_ptr<Job>> m_built;
    QList<std::shared_ptr<Job>> m_inFlight;
    int m_building = 0;
    int m_evaluating = 0;
    int m_finishedThisSession = 0;
    QElapsedTimer m_clock;
    QHash<QString, std::shared_ptr<Provider>> m_providers;
    bool m_cancelling = false;
};

} // namespace kb::engine
