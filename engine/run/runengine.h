#pragma once
// The engine facade: creates runs and drives their attempts to completion in the background
// (generation -> static check and build, in parallel -> evaluation, one at a time per device).
// Everything is stored as it happens; a stopped engine resumes a run where it stopped.

#include "db/database.h"
#include "enginelease.h"
#include "faults.h"
#include "runtypes.h"
#include "scheduler/gpupool.h"
#include "scheduler/gputelemetry.h"
#include "slotmeter.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QQueue>
#include <functional>
#include <memory>

namespace kb::engine {

class AttemptGenerator;
struct AttemptJob;
class Executor;
struct ExecOutcome;
class KeyStore;
struct GenerationSettings;

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
    // Where provider API keys are read (default: the OS keychain, else the 0600 key file).
    void setKeyStore(std::shared_ptr<KeyStore> keys);

    // Scheduling controls. They go through the database, so another process (kbstudio-cli
    // pause/resume/cancel) has the same effect; this engine notices on its next heartbeat.
    // Pause: in-flight work finishes, nothing new starts; paused() once nothing is in flight.
    void pause();
    void resume();
    bool isPaused() const { return m_paused; }
    // Cancels the unfinished attempts of one model / one task of the current run.
    int cancelModel(const QString& model);
    int cancelTask(const QString& taskKey);
    // Stops working on the run without ending it: in-flight work is killed and queued again and
    // the leases are released, so any engine can resume the run.
    void stop();

    // This engine's owner id in the engines table, and what kind of engine it is.
    QString ownerId() const { return m_lease->owner(); }
    void setEngineKind(const QString& kind) { m_lease->setKind(kind); }
    // Heartbeat period and lease length (defaults kEngineHeartbeatMs and kEngineLeaseSeconds).
    void setLeaseTiming(int heartbeatMs, double leaseSeconds) {
        m_lease->setTiming(heartbeatMs, leaseSeconds);
    }
    // A reading of this host's GPUs (empty without NVML or GPUs), for the GUI to poll.
    static QList<GpuTelemetry> gpuTelemetry() { return sampleGpus(); }

Q_SIGNALS:
    void attemptFinished(const kb::engine::AttemptResult& result);
    void progress(const kb::engine::RunProgress& progress);
    void runFinished(qint64 runId, const QString& status, const QString& message);
    void paused(qint64 runId);
    void logLine(const QString& line);

private:
    using Job = AttemptJob;
    void pump();
    void prepare(db::Id attemptId);
    void onPhaseFinished(const std::shared_ptr<Job>& job, bool buildPhase,
                         const ExecOutcome& outcome);
    void finishWithRecord(const std::shared_ptr<Job>& job, db::EvaluationRecord record);
    void finishWithoutResult(const std::shared_ptr<Job>& job, const QString& verdict,
                             const QString& message);
    // The attempt is stored: it leaves the in-flight list and attemptFinished/progress go out.
    void announceFinished(const std::shared_ptr<Job>& job, const QString& verdict,
                          const QString& message, bool suspicious,
                          std::optional<double> speedupEager);
    void startPhase(const std::shared_ptr<Job>& job, bool buildPhase);
    void onCandidate(const std::shared_ptr<Job>& job, const QString& code);
    void onNoCandidate(const std::shared_ptr<Job>& job, const QString& message);
    void onProviderFailed(const std::shared_ptr<Job>& job, const QString& message, int httpStatus);
    // Ends the run as failed now (in-flight work queued again), e.g. a provider refusing every
    // request; --resume continues it.
    void abortRun(const QString& message);
    // Gives the run back (in-flight work killed and queued again, the lease released); with a
    // failure, the run is marked failed.
    void leaveRun(const std::optional<QString>& failure);
    QString buildCacheDir() const;
    void emitProgress();
    void finishRun(db::RunStatus status, QString message);
    // Scheduling helpers (leases, control flags, executors, retries).
    void onLeaseRenewed();
    void onLeaseRenewFailed(const QString& error);
    void pollControl();
    // Applies a control change through the database and acts on it at once; false when no run
    // is going or the database refused (the run stops then, with `failure`).
    bool applyControl(const QString& failure, const std::function<void()>& change);
    void failOnDatabase(const QString& what, const std::exception& e);
    bool retryLater(const std::shared_ptr<Job>& job, bool buildPhase, const QString& reason);
    void endExecution(const Job* job, bool kill);
    void dropJob(const std::shared_ptr<Job>& job);
    void killAll();
    void shutdownScheduling();

    std::unique_ptr<db::Database> m_db;
    QString m_workRoot;
    db::Id m_runId = 0;
    EvalSettings m_settings;
    QQueue<db::Id> m_pending;
    QQueue<std::shared_ptr<Job>> m_toBuild; // generated, waiting for a build slot
    QQueue<std::shared_ptr<Job>> m_built;
    QList<std::shared_ptr<Job>> m_inFlight;
    int m_building = 0;
    int m_evaluating = 0;
    int m_finishedThisSession = 0;
    QElapsedTimer m_clock;
    std::unique_ptr<AttemptGenerator> m_generator;
    bool m_cancelling = false;
    ProviderFaultTracker m_providerFaults;

    // Scheduling state.
    struct Execution {
        QPointer<Executor> executor;
        bool build = true;
        int gpu = -1;
    };
    QHash<const Job*, Execution> m_running;
    std::unique_ptr<EngineLease> m_lease;
    bool m_paused = false;
    bool m_pausedSignalled = false;
    QString m_backend = QStringLiteral("local");
    GpuPool m_gpus;
    SlotMeter m_evalMeter; // how busy the evaluation slots are
};

} // namespace kb::engine
