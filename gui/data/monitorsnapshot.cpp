#include "monitorsnapshot.h"

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

double nowSeconds(db::Connection& conn) {
    db::Statement s(conn, "SELECT (julianday('now') - 2440587.5) * 86400.0");
    s.step();
    return s.real(0);
}

} // namespace

void StateCounts::add(const std::string& status, const std::string& verdict) {
    if (status == "queued")
        ++queued;
    else if (status == "generating")
        ++generating;
    else if (status == "building")
        ++building;
    else if (status == "evaluating")
        ++evaluating;
    else if (status == "done")
        ++done;
    else if (status == "failed")
        ++failed;
    else if (status == "cancelled")
        ++cancelled;
    if (verdict == "correct")
        ++correct;
}

std::optional<MonitorSnapshot> readMonitorSnapshot(db::Connection& conn, db::Id runId,
                                                   double windowSeconds, int recentLines) {
    db::RunRepository runs(conn);
    auto run = runs.run(runId);
    if (!run)
        return std::nullopt;
    MonitorSnapshot m;
    m.run = std::move(*run);
    {
        db::Statement s(conn, "SELECT backend FROM runs WHERE id = ?");
        s.bind(1, runId);
        if (s.step())
            m.backend = s.text(0);
    }
    {
        db::Statement s(
            conn, "SELECT m.name, a.status, a.verdict, count(*) FROM attempts a JOIN models m ON "
                  "m.id = a.model_id WHERE a.run_id = ? GROUP BY m.name, a.status, a.verdict");
        s.bind(1, runId);
        while (s.step()) {
            const int n = s.int32(3);
            for (int i = 0; i < n; ++i) {
                m.counts.add(s.text(1), s.text(2));
                m.perModel[s.text(0)].add(s.text(1), s.text(2));
            }
        }
    }
    const double now = nowSeconds(conn);
    {
        db::Statement s(
            conn, "SELECT count(*) FROM attempts WHERE run_id = ? AND finished_at IS NOT NULL AND "
                  "(julianday('now') - julianday(finished_at)) * 86400.0 <= ?");
        s.bind(1, runId).bind(2, windowSeconds);
        s.step();
        const int recent = s.int32(0);
        // Over the run's own span when it started less than a window ago.
        double span = windowSeconds;
        if (m.run.startedAt) {
            db::Statement started(conn, "SELECT (julianday('now') - julianday(?)) * 86400.0");
            started.bind(1, *m.run.startedAt);
            started.step();
            span = std::clamp(started.real(0), 1.0, windowSeconds);
        }
        m.attemptsPerMinute = recent * 60.0 / span;
        const int remaining = m.counts.queued + m.counts.active();
        if (m.attemptsPerMinute > 0 && remaining > 0)
            m.etaSeconds = remaining / m.attemptsPerMinute * 60.0;
    }
    {
        db::Statement s(
            conn,
            "SELECT g.gpu_index, g.phase, g.sm_clock_mhz, g.mem_clock_mhz, g.temperature_c, "
            "g.power_w, "
            "g.utilization, g.throttle_reasons FROM gpu_samples g JOIN evaluations e ON "
            "e.id = g.evaluation_id JOIN attempts a ON a.id = e.attempt_id WHERE a.run_id = ? "
            "ORDER BY g.id DESC LIMIT 64");
        s.bind(1, runId);
        while (s.step()) {
            const int index = s.int32(0);
            if (std::any_of(m.gpus.begin(), m.gpus.end(),
                            [index](const GpuSample& g) { return g.gpuIndex == index; }))
                continue;
            GpuSample g;
            g.gpuIndex = index;
            g.phase = s.text(1);
            g.smClockMhz = s.optReal(2);
            g.memClockMhz = s.optReal(3);
            g.temperatureC = s.optReal(4);
            g.powerW = s.optReal(5);
            g.utilization = s.optReal(6);
            g.throttleReasons = s.text(7);
            m.gpus.push_back(std::move(g));
        }
        std::sort(m.gpus.begin(), m.gpus.end(),
                  [](const auto& a, const auto& b) { return a.gpuIndex < b.gpuIndex; });
    }
    {
        db::Statement s(conn, "SELECT kind, host, pid, heartbeat_at FROM engines WHERE run_id = ? "
                              "AND stopped_at IS NULL "
                              "ORDER BY heartbeat_at DESC LIMIT 1");
        s.bind(1, runId);
        if (s.step())
            m.engine = EngineInfo{s.text(0), s.text(1), s.int64(2), std::max(0.0, now - s.real(3))};
    }
    {
        db::Statement s(
            conn,
            "SELECT a.id, a.finished_at, m.name, t.task_key, a.status, a.verdict, a.speedup_eager, "
            "a.message FROM attempts a JOIN models m ON m.id = a.model_id JOIN tasks t ON "
            "t.id = a.task_id WHERE a.run_id = ? AND a.finished_at IS NOT NULL "
            "ORDER BY a.finished_at DESC, a.id DESC LIMIT ?");
        s.bind(1, runId).bind(2, recentLines);
        while (s.step())
            m.recent.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5),
                                s.optReal(6), s.text(7)});
        std::reverse(m.recent.begin(), m.recent.end());
    }
    return m;
}

QString finishedLineText(const FinishedLine& line) {
    QString time = QString::fromStdString(line.finishedAt);
    if (const int t = static_cast<int>(time.indexOf(QLatin1Char('T'))); t >= 0)
        time = time.mid(t + 1, 8);
    QString text =
        QStringLiteral("[%1] %2 %3: %4")
            .arg(time, QString::fromStdString(line.model), QString::fromStdString(line.task),
                 QString::fromStdString(line.status == "cancelled" ? line.status : line.verdict));
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
