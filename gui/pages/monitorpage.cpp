#include "monitorpage.h"

#include "db/database.h"
#include "models/monitormodelsmodel.h"
#include "run/runengine.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <utility>

namespace kb::gui {

namespace {

MonitorSnapshotPtr loadMonitor(const QString& path, db::Id runId) {
    try {
        db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
        if (auto m = readMonitorSnapshot(database.connection(), runId))
            return std::make_shared<const MonitorSnapshot>(std::move(*m));
    } catch (const std::exception&) {
        // a database being written or migrated: the next poll tries again
    }
    return nullptr;
}

QString number(const std::optional<double>& v, const char* unit, int decimals = 0) {
    return v ? QStringLiteral("%1 %2").arg(*v, 0, 'f', decimals).arg(QString::fromLatin1(unit))
             : QStringLiteral("–");
}

} // namespace

MonitorPage::MonitorPage(QWidget* parent)
    : QWidget(parent)
    , m_pollTimer(new QTimer(this))
    , m_logTimer(new QTimer(this))
    , m_run(new QComboBox(this))
    , m_title(new QLabel(this))
    , m_empty(new QLabel(this))
    , m_stats(new QLabel(this))
    , m_gpu(new QLabel(this))
    , m_models(new MonitorModelsModel(this))
    , m_modelView(new QTableView(this))
    , m_log(new QPlainTextEdit(this))
    , m_pause(new QPushButton(tr("Pause"), this))
    , m_resume(new QPushButton(tr("Resume"), this))
    , m_cancel(new QPushButton(tr("Cancel run"), this))
    , m_controlError(new QLabel(this))
    , m_splitter(new QSplitter(Qt::Vertical, this)) {
    m_pollTimer->setInterval(1000);
    connect(m_pollTimer, &QTimer::timeout, this, &MonitorPage::pollNow);
    // Log lines of an in-process engine arrive in bursts; they are drawn in batches.
    m_logTimer->setSingleShot(true);
    m_logTimer->setInterval(200);
    connect(m_logTimer, &QTimer::timeout, this, &MonitorPage::flushLog);

    m_run->setObjectName(QStringLiteral("monitorRun"));
    m_run->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_pause->setToolTip(tr("Attempts in flight finish; nothing new starts"));
    m_cancel->setToolTip(tr("Cancel every unfinished attempt of the run"));
    m_controlError->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_controlError->setWordWrap(true);
    m_empty->setObjectName(QStringLiteral("monitorEmpty"));
    m_empty->setWordWrap(true);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_gpu->setTextFormat(Qt::RichText);
    m_gpu->setWordWrap(true);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Run:"), this));
    top->addWidget(m_run);
    top->addWidget(m_title, 1);
    top->addWidget(m_pause);
    top->addWidget(m_resume);
    top->addWidget(m_cancel);

    auto* bars = new QGridLayout;
    const std::array<QString, StateCount> names = {
        tr("Queued"), tr("Generating"), tr("Building"), tr("Evaluating"),
        tr("Done"),   tr("Failed"),     tr("Cancelled")};
    const std::array<const char*, StateCount> colors = {"#9e9e9e", "#7e57c2", "#fb8c00", "#1e88e5",
                                                        "#43a047", "#e53935", "#757575"};
    for (int i = 0; i < StateCount; ++i) {
        auto* bar = new QProgressBar(this);
        bar->setRange(0, 1);
        bar->setValue(0);
        bar->setFormat(QStringLiteral("%v / %m"));
        bar->setStyleSheet(QStringLiteral("QProgressBar::chunk { background-color: %1; }")
                               .arg(QString::fromLatin1(colors[static_cast<std::size_t>(i)])));
        m_bars[static_cast<std::size_t>(i)] = bar;
        bars->addWidget(new QLabel(names[static_cast<std::size_t>(i)], this), i % 4, (i / 4) * 2);
        bars->addWidget(bar, i % 4, (i / 4) * 2 + 1);
    }
    bars->setColumnStretch(1, 1);
    bars->setColumnStretch(3, 1);

    m_modelView->setModel(m_models);
    m_modelView->verticalHeader()->hide();
    m_modelView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_modelView->horizontalHeader()->setStretchLastSection(true);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    m_log->setObjectName(QStringLiteral("monitorLog"));
    m_log->setPlaceholderText(tr("Finished attempts appear here."));

    auto* upper = new QWidget(this);
    auto* upperLayout = new QVBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->addLayout(bars);
    auto* info = new QHBoxLayout;
    info->addWidget(m_stats, 1);
    info->addWidget(m_gpu, 1);
    upperLayout->addLayout(info);
    upperLayout->addWidget(m_modelView, 1);
    m_splitter->addWidget(upper);
    m_splitter->addWidget(m_log);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_controlError);
    layout->addWidget(m_empty);
    layout->addWidget(m_splitter, 1);
    m_controlError->hide();

    connect(m_run, &QComboBox::activated, this,
            [this]() { setRunId(m_run->currentData().toLongLong()); });
    connect(m_pause, &QPushButton::clicked, this, [this]() { controlRun(RunAction::Pause); });
    connect(m_resume, &QPushButton::clicked, this, [this]() { controlRun(RunAction::Resume); });
    connect(m_cancel, &QPushButton::clicked, this, [this]() { controlRun(RunAction::Cancel); });
    apply(nullptr);
}

void MonitorPage::setDatabasePath(const QString& path) {
    if (path == m_databasePath)
        return; // a reload of the same database keeps the log
    m_databasePath = path;
    m_tracker.invalidate();
    m_monitor.reset();
    m_logged.clear();
    m_log->clear();
}

void MonitorPage::fillRuns() {
    m_run->clear();
    if (!m_snapshot)
        return;
    for (auto it = m_snapshot->runs.rbegin(); it != m_snapshot->runs.rend(); ++it) {
        const auto& r = it->run;
        m_run->addItem(tr("#%1 %2 (%3)")
                           .arg(r.id)
                           .arg(QString::fromStdString(r.name), QString::fromStdString(r.status)),
                       qint64(r.id));
    }
}

void MonitorPage::setSnapshot(SnapshotPtr snapshot) {
    m_snapshot = std::move(snapshot);
    fillRuns();
    db::Id wanted = m_runId;
    if (m_snapshot && (wanted == 0 || !m_snapshot->findRun(wanted))) {
        wanted = 0;
        for (auto it = m_snapshot->runs.rbegin(); it != m_snapshot->runs.rend() && wanted == 0;
             ++it) {
            if (db::isLive(it->run.runStatus()))
                wanted = it->run.id;
        }
        if (wanted == 0 && !m_snapshot->runs.empty())
            wanted = m_snapshot->runs.back().run.id;
    }
    setRunId(m_snapshot ? wanted : 0);
}

void MonitorPage::setRunId(db::Id runId) {
    const int row = m_run->findData(qint64(runId));
    if (row >= 0)
        m_run->setCurrentIndex(row);
    if (runId == m_runId)
        return;
    m_runId = runId;
    m_tracker.invalidate();
    m_monitor.reset();
    m_logged.clear();
    m_log->clear();
    apply(nullptr);
    pollNow();
}

void MonitorPage::setEngine(engine::RunEngine* engine) {
    if (m_engine)
        m_engine->disconnect(this);
    m_engine = engine;
    if (m_engine)
        connect(m_engine, &engine::RunEngine::logLine, this, &MonitorPage::appendLog);
}

void MonitorPage::setPollInterval(int ms) {
    m_pollTimer->setInterval(ms);
}

void MonitorPage::pollNow() {
    if (m_databasePath.isEmpty() || m_runId == 0)
        return;
    if (m_tracker.isRunning()) {
        m_pollAgain = true; // the running poll may have read the database before a change
        return;
    }
    const QString path = m_databasePath;
    const db::Id runId = m_runId;
    m_tracker.start([path, runId]() { return loadMonitor(path, runId); },
                    [this](MonitorSnapshotPtr snapshot) {
                        apply(std::move(snapshot));
                        Q_EMIT polled();
                        if (std::exchange(m_pollAgain, false))
                            pollNow();
                    });
}

bool MonitorPage::engineRunsThisRun() const {
    return m_engine && m_engine->isRunning() && m_engine->progressSnapshot().runId == m_runId;
}

QString MonitorPage::controlRun(RunAction action) {
    QString error;
    if (m_runId == 0) {
        error = tr("Choose a run first.");
    } else if (engineRunsThisRun()) {
        switch (action) {
        case RunAction::Pause:
            m_engine->pause();
            break;
        case RunAction::Resume:
            m_engine->resume();
            break;
        case RunAction::Cancel:
            m_engine->cancel();
            break;
        }
    } else {
        error = controlRunInDatabase(m_databasePath, m_runId, action);
    }
    m_controlError->setText(error);
    m_controlError->setVisible(!error.isEmpty());
    pollNow();
    return error;
}

void MonitorPage::apply(MonitorSnapshotPtr snapshot) {
    if (snapshot || m_runId == 0)
        m_monitor = std::move(snapshot);
    const MonitorSnapshot* m = m_monitor.get();
    m_models->setSnapshot(m_monitor);
    if (!m) {
        m_empty->setText(m_runId == 0
                             ? tr("No runs yet — start the demo (Ctrl+R) and watch it here.")
                             : tr("Reading run %1…").arg(m_runId));
        m_empty->show();
        m_splitter->setEnabled(false);
        m_title->clear();
        m_stats->clear();
        m_gpu->clear();
        for (auto* bar : m_bars) {
            bar->setRange(0, 1);
            bar->setValue(0);
        }
        updateButtons();
        return;
    }
    m_empty->hide();
    m_splitter->setEnabled(true);
    m_title->setText(
        tr("<b>%1</b> · %2 · %3 backend")
            .arg(QString::fromStdString(m->run.name).toHtmlEscaped(),
                 QString::fromStdString(m->run.status),
                 QString::fromStdString(m->backend.empty() ? std::string("local") : m->backend)));
    const int total = std::max(1, m->counts.total());
    const std::array<int, StateCount> values = {
        m->counts.queued, m->counts.generating, m->counts.building, m->counts.evaluating,
        m->counts.done,   m->counts.failed,     m->counts.cancelled};
    for (int i = 0; i < StateCount; ++i) {
        auto* bar = m_bars[static_cast<std::size_t>(i)];
        bar->setRange(0, total);
        bar->setValue(values[static_cast<std::size_t>(i)]);
    }
    QString stats = tr("%1 of %2 attempts finished (%3 correct) · %4 per minute")
                        .arg(m->counts.finished())
                        .arg(m->counts.total())
                        .arg(m->counts.correct)
                        .arg(m->attemptsPerMinute, 0, 'f', 1);
    if (m->etaSeconds && m->run.runStatus() == db::RunStatus::Running)
        stats += tr(" · about %1 left").arg(durationText(*m->etaSeconds));
    if (m->engine) {
        stats += QLatin1Char('\n') + tr("Engine: %1 on %2 (pid %3), heard from %4 ago")
                                         .arg(QString::fromStdString(m->engine->kind),
                                              QString::fromStdString(m->engine->host))
                                         .arg(m->engine->pid)
                                         .arg(durationText(m->engine->heartbeatAgeSeconds));
    } else if (m->isActive()) {
        stats +=
            QLatin1Char('\n') +
            tr("No engine is working on this run; resume it with kbstudio-cli run --resume %1.")
                .arg(m->run.id);
    }
    m_stats->setText(stats);
    if (m->gpus.empty()) {
        m_gpu->setText(tr("No GPU telemetry (CPU run)."));
    } else {
        QString html = tr("<table cellspacing=\"4\"><tr><th>GPU</th><th>util</th><th>SM "
                          "clock</th><th>mem clock</th>"
                          "<th>temp</th><th>power</th><th>throttle</th></tr>");
        for (const auto& g : m->gpus) {
            html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</"
                                   "td><td>%6</td><td>%7</td></tr>")
                        .arg(g.gpuIndex)
                        .arg(number(g.utilization, "%"), number(g.smClockMhz, "MHz"),
                             number(g.memClockMhz, "MHz"), number(g.temperatureC, "°C"),
                             number(g.powerW, "W"),
                             g.throttleReasons.empty()
                                 ? tr("none")
                                 : QString::fromStdString(g.throttleReasons).toHtmlEscaped());
        }
        m_gpu->setText(html + QStringLiteral("</table>"));
    }
    // Without an in-process engine the log is the finished attempts, read from the database.
    for (const auto& line : m->recent) {
        if (m_logged.insert(line.attemptId).second && !engineRunsThisRun())
            m_pendingLog << finishedLineText(line);
    }
    flushLog();
    updateButtons();
}

void MonitorPage::appendLog(const QString& line) {
    m_pendingLog << line;
    if (!m_logTimer->isActive())
        m_logTimer->start();
}

void MonitorPage::flushLog() {
    if (m_pendingLog.isEmpty())
        return;
    m_log->appendPlainText(m_pendingLog.join(QLatin1Char('\n')));
    m_pendingLog.clear();
}

void MonitorPage::updateButtons() {
    const bool paused = m_monitor && m_monitor->run.runStatus() == db::RunStatus::Paused;
    const bool active = m_monitor && m_monitor->isActive();
    m_pause->setEnabled(active && !paused);
    m_resume->setEnabled(paused);
    m_cancel->setEnabled(active);
}

QString MonitorPage::statsText() const {
    return m_stats->text();
}

QString MonitorPage::gpuText() const {
    return m_gpu->text();
}

QString MonitorPage::logText() const {
    return m_log->toPlainText();
}

QString MonitorPage::emptyText() const {
    return m_empty->isVisibleTo(this) ? m_empty->text() : QString();
}

void MonitorPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    pollNow();
    m_pollTimer->start();
}

void MonitorPage::hideEvent(QHideEvent* event) {
    QWidget::hideEvent(event);
    m_pollTimer->stop();
}

void MonitorPage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("monitor/splitter"), m_splitter->saveState());
}

void MonitorPage::restoreState(const QSettings& settings) {
    m_splitter->restoreState(settings.value(QStringLiteral("monitor/splitter")).toByteArray());
}

} // namespace kb::gui
