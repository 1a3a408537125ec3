#include "progressline.h"

#include <QTextStream>
#include <cstdio>
#include <unistd.h>

namespace kb::cli {

QString progressText(const engine::RunProgress& p, int barWidth) {
    const int finished = p.finished();
    const double frac = p.total > 0 ? static_cast<double>(finished) / p.total : 0.0;
    const int filled = static_cast<int>(frac * barWidth + 0.5);
    QString bar = QString(filled, QLatin1Char('#')) + QString(barWidth - filled, QLatin1Char('.'));
    QString eta = p.etaSeconds ? QStringLiteral("ETA %1 s").arg(*p.etaSeconds, 0, 'f', 0)
                               : QStringLiteral("ETA --");
    const double rate = p.attemptsPerMinute;
    QString slots;
    if (p.evalSlots > 1 || p.backend != QLatin1String("local"))
        slots = QStringLiteral("  %1 %2/%3 busy")
                    .arg(p.backend == QLatin1String("slurm") ? QStringLiteral("jobs")
                                                             : QStringLiteral("gpus"))
                    .arg(p.evalSlotsBusy)
                    .arg(p.evalSlots);
    return QStringLiteral("%11[%1] %2/%3  queued %4  building %5  evaluating %6  done %7  failed "
                          "%8  %9/min  %10%12")
        .arg(bar)
        .arg(finished)
        .arg(p.total)
        .arg(p.queued)
        .arg(p.building + p.generating)
        .arg(p.evaluating)
        .arg(p.done)
        .arg(p.failed)
        .arg(rate, 0, 'f', 1)
        .arg(eta, p.paused ? QStringLiteral("PAUSED ") : QString(), slots);
}

ProgressLine::ProgressLine(bool enabled)
    : m_enabled(enabled)
    , m_tty(isatty(fileno(stdout)) != 0) {}

void ProgressLine::redraw() {
    if (!m_enabled || !m_tty)
        return;
    QTextStream(stdout) << "\r\033[K" << progressText(m_last, 24) << Qt::flush;
    m_drawn = true;
}

void ProgressLine::update(const engine::RunProgress& progress) {
    m_last = progress;
    redraw();
}

void ProgressLine::attempt(const engine::AttemptResult& r) {
    if (!m_enabled)
        return;
    QTextStream s(stdout);
    if (m_tty && m_drawn)
        s << "\r\033[K";
    QString speed = r.speedupEager
                        ? QStringLiteral("  %1x vs eager").arg(*r.speedupEager, 0, 'f', 2)
                        : QString();
    s << QStringLiteral("  %1 %2 %3: %4%5%6")
             .arg(r.model, -8)
             .arg(r.task, -22)
             .arg(QString())
             .arg(r.verdict)
             .arg(speed)
             .arg(r.suspicious ? QStringLiteral("  [suspicious]") : QString())
      << "  (" << m_last.finished() + 1 << "/" << m_last.total << ")";
    if (!r.message.isEmpty() && r.verdict != QLatin1String("correct"))
        s << "\n      " << r.message.left(160);
    s << '\n' << Qt::flush;
    redraw();
}

void ProgressLine::message(const QString& text) {
    QTextStream s(stdout);
    if (m_tty && m_drawn)
        s << "\r\033[K";
    s << text << '\n' << Qt::flush;
    redraw();
}

void ProgressLine::finish() {
    if (m_tty && m_drawn)
        QTextStream(stdout) << "\r\033[K" << progressText(m_last, 24) << '\n' << Qt::flush;
}

} // namespace kb::cli
