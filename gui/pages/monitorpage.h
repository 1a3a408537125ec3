#pragma once
// Run monitor: live progress per state and per model, throughput and ETA, GPU telemetry, a log
// and pause/resume/cancel. It polls the database about once a second off the GUI thread, so it
// watches a run of this window's engine and a headless one alike.

#include "data/jobtracker.h"
#include "data/monitorsnapshot.h"
#include "data/runcontrol.h"
#include "data/snapshot.h"

#include <QPointer>
#include <QStringList>
#include <QWidget>
#include <array>
#include <set>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSettings;
class QSplitter;
class QTableView;
class QTimer;

namespace kb::engine {
class RunEngine;
}

namespace kb::gui {

class MonitorModelsModel;

class MonitorPage : public QWidget {
    Q_OBJECT
public:
    enum State { Queued, Generating, Building, Evaluating, Done, Failed, Cancelled, StateCount };

    explicit MonitorPage(QWidget* parent = nullptr);

    void setDatabasePath(const QString& path); // a different database clears the log
    // The runs to choose from; picks the newest active run when none is chosen.
    void setSnapshot(SnapshotPtr snapshot);
    void setRunId(db::Id runId);
    db::Id runId() const { return m_runId; }
    // The engine of this window, when it runs something (not owned). Its log lines go to the
    // log view and its own pause/resume/cancel are used for the run it is working on.
    void setEngine(engine::RunEngine* engine);

    void setPollInterval(int ms);
    // Starts a poll now (the timer polls while the page is visible).
    void pollNow();
    bool isPolling() const { return m_tracker.isRunning(); }

    // Pause, resume or cancel the watched run: through this window's engine when it is running
    // that run, else through the database protocol (controlRunInDatabase), which any headless
    // engine follows. The one place run control is wired; returns a readable error or "".
    QString controlRun(RunAction action);

    MonitorSnapshotPtr monitorSnapshot() const { return m_monitor; }
    MonitorModelsModel* modelsModel() const { return m_models; }
    QProgressBar* stateBar(State state) const { return m_bars.at(static_cast<std::size_t>(state)); }
    QString statsText() const;
    QString gpuText() const;
    QString logText() const;
    QString emptyText() const;

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

Q_SIGNALS:
    void polled();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void apply(MonitorSnapshotPtr snapshot);
    void appendLog(const QString& line);
    void flushLog();
    void updateButtons();
    bool engineRunsThisRun() const;
    void fillRuns();

    QString m_databasePath;
    SnapshotPtr m_snapshot;
    db::Id m_runId = 0;
    QPointer<engine::RunEngine> m_engine;
    MonitorSnapshotPtr m_monitor;
    JobTracker m_tracker{this};
    QTimer* m_pollTimer;
    QTimer* m_logTimer;
    QStringList m_pendingLog;
    std::set<db::Id> m_logged;
    bool m_pollAgain = false;

    QComboBox* m_run;
    QLabel* m_title;
    QLabel* m_empty;
    std::array<QProgressBar*, StateCount> m_bars{};
    QLabel* m_stats;
    QLabel* m_gpu;
    MonitorModelsModel* m_models;
    QTableView* m_modelView;
    QPlainTextEdit* m_log;
    QPushButton* m_pause;
    QPushButton* m_resume;
    QPushButton* m_cancel;
    QLabel* m_controlError;
    QSplitter* m_splitter;
};

} // namespace kb::gui
