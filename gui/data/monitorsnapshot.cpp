#include "monitorsnapshot.h"

#include "db/evaluationrepository.h"
#include "db/leaserepository.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"
#include "report/textformat.h"

#include <QCoreApplication>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::MonitorSnapshot", text);
}

} // namespace

void StateCounts::add(db::AttemptStatus status, const std::string& verdict, int count) {
    switch (status) {
    case db::AttemptStatus::Queued:
        queued += count;
        break;
    case db::AttemptStatus::Generating:
        generating += count;
        break;
    case db::AttemptStatus::Building:
        building += count;
        break;
    case db::AttemptStatus::Evaluating:
        evaluating += count;
        break;
    case db::AttemptStatus::Done:
        done += count;
        break;
    case db::AttemptStatus::Failed:
        failed += count;
        break;
    case db::AttemptStatus::Cancelled:
        cancelled += count;
        break;
    }
    if (verdict == "correct")
        correct += count;
}

std::optional<MonitorSnapshot> readMonitorSnapshot(db::Connection& conn, db::Id runId,
                                                   double windowSeconds, int recentLines) {
    db::RunRepository runs(conn);
    auto run = runs.run(runId);
    if (!run)
        return std::nullopt;
    MonitorSnapshot m;
    m.run = std::move(*run);
    m.backend = db::QueueRepository(conn).runBackend(runId);
    db::MonitorRepository monitor(conn);
    for (const auto& c : monitor.stateCounts(runId)) {
        const db::AttemptStatus status = db::attemptStatusFromString(c.status);
        m.counts.add(status, c.verdict, c.count);
        m.perModel[c.model].add(status, c.verdict, c.count);
    }
    {
        const db::FinishRate rate = monitor.finishRate(runId, windowSeconds);
        // Over the run's own span when it started less than a window ago.
        double span = windowSeconds;
        if (m.run.startedAt && rate.secondsSinceStart)
            span = std::clamp(*rate.secondsSinceStart, 1.0, windowSeconds);
        m.attemptsPerMinute = rate.finishedInWindow * 60.0 / span;
        const int remaining = m.counts.queued + m.counts.active();
        if (m.attemptsPerMinute > 0 && remaining > 0)
            m.etaSeconds = remaining / m.attemptsPerMinute * 60.0;
    }
    m.gpus = db::EvaluationRepository(conn).gpuSamples(
        runId, db::EvaluationRepository::GpuSampleScope::NewestPerGpu);
    if (const auto engine = db::LeaseRepository(conn).newestEngine(runId)) {
        m.engine = EngineInfo{engine->kind, engine->host, engine->pid,
                              std::max(0.0, db::LeaseRepository::now() - engine->heartbeatAt)};
    }
    m.recent = monitor.recentlyFinished(runId, recentLines);
    return m;
}

QString finishedLineText(const FinishedLine& line) {
    QString time = QString::fromStdString(line.finishedAt);
    if (const int t = static_cast<int>(time.indexOf(QLatin1Char('T'))); t >= 0)
        time = time.mid(t + 1, 8);
    QString text =
        QStringLiteral("[%1] %2 %3: %4")
            .arg(time, QString::fromStdString(line.model), QString::fromStdString(line.taskKey),
                 QString::fromStdString(db::parseAttemptStatus(line.status) ==
                                                db::AttemptStatus::Cancelled
                                            ? line.status
                                            : line.verdict));
    if (line.speedupEager)
        text += QLatin1Char(' ') +
                report::formatSpeedupValue(*line.speedupEager); // 3 significant digits below 1x
    if (line.verdict != "correct" && !line.message.empty())
        text += QStringLiteral(" — ") +
                QString::fromStdString(line.message).section(QLatin1Char('\n'), 0, 0).left(160);
    return text;
}

QString durationText(double seconds) {
    const auto s = static_cast<qint64>(std::llround(std::max(0.0, seconds)));
    if (s >= 3600)
        return tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
    if (s >= 60)
        return tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return tr("%1 s").arg(s);
}

} // namespace kb::gui
