// bench_gui PATH [repeats]: opens PATH (a database written by `bench_engine db PATH N`) in the
// real main window on the offscreen platform and prints one table: time to the first paint
// after open, page switches, run selection, results-filter changes and plot refreshes (median
// of `repeats`), each with the longest GUI-thread stall seen while it ran, then the peak RSS.

#include "app/mainwindow.h"
#include "models/resultsfilterproxy.h"
#include "pages/comparepage.h"
#include "pages/plotspage.h"
#include "pages/resultspage.h"
#include "plots/costscoreplot.h"
#include "plots/fastpcurveplot.h"
#include "plots/speedupdistributionplot.h"
#include "plots/turnsspeedupplot.h"
#include "stallmonitor.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <algorithm>
#include <functional>
#include <sys/resource.h>
#include <vector>

namespace kb::bench {
namespace {

using gui::MainWindow;

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

QString fmt(double v) {
    return QString::number(v, 'f', v < 10 ? 1 : 0);
}

double peakRssMb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

struct Timing {
    double ms = 0;
    double stallMs = 0;
};

class Bench {
public:
    Bench(MainWindow& window, StallMonitor& stalls)
        : m_window(window)
        , m_stalls(stalls) {}

    // Runs action, waits until the window has no load in flight, handles the events that
    // follow and paints the window; returns the wall time and the longest stall.
    Timing measure(const std::function<void()>& action, int timeoutMs = 600000) {
        QCoreApplication::processEvents();
        m_stalls.reset();
        QElapsedTimer timer;
        timer.start();
        action();
        while (m_window.isLoading() && timer.elapsed() < timeoutMs) {
            QCoreApplication::processEvents(QEventLoop::AllEvents);
            QThread::usleep(200);
        }
        QCoreApplication::processEvents();
        m_window.repaint();
        return {static_cast<double>(timer.nsecsElapsed()) / 1e6, m_stalls.longestMs()};
    }

    void add(const QString& name, const std::vector<Timing>& runs, const QString& target) {
        std::vector<double> ms;
        std::vector<double> stall;
        for (const auto& t : runs) {
            ms.push_back(t.ms);
            stall.push_back(t.stallMs);
        }
        m_rows << QStringList{name, fmt(median(ms)),
                              fmt(*std::max_element(stall.begin(), stall.end())), target};
    }

    void print(QTextStream& out) const {
        QList<QStringList> rows = m_rows;
        rows.prepend({QStringLiteral("operation"), QStringLiteral("median ms"),
                      QStringLiteral("longest GUI stall ms"), QStringLiteral("target")});
        QList<qsizetype> width(4, 0);
        for (const auto& r : rows)
            for (qsizetype i = 0; i < r.size(); ++i)
                width[i] = std::max(width[i], r[i].size());
        for (qsizetype k = 0; k < rows.size(); ++k) {
            out << "| ";
            for (qsizetype i = 0; i < rows[k].size(); ++i)
                out << rows[k][i].leftJustified(width[i]) << " | ";
            out << '\n';
            if (k == 0) {
                out << '|';
                for (qsizetype w : width)
                    out << QString(w + 2, QLatin1Char('-')) << '|';
                out << '\n';
            }
        }
        out.flush();
    }

private:
    MainWindow& m_window;
    StallMonitor& m_stalls;
    QList<QStringList> m_rows;
};

int run(const QString& path, int repeats) {
    QTextStream out(stdout);
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());

    StallMonitor stalls;
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QCoreApplication::processEvents();
    Bench bench(window, stalls);
    const QString pageTarget = QStringLiteral("< 100");

    const Timing open = bench.measure([&]() { window.openDatabase(path); });
    if (!window.snapshot() || !window.snapshot()->hasRuns()) {
        out << "cannot open " << path << ": " << window.errorText() << Qt::endl;
        return 1;
    }
    bench.add(QStringLiteral("open → first paint (newest run in scope)"), {open},
              QStringLiteral("—"));
    const double rssAfterOpen = peakRssMb();

    const std::vector<QString> names = {
        QStringLiteral("Runs"),    QStringLiteral("Results"),   QStringLiteral("Leaderboard"),
        QStringLiteral("Attempt"), QStringLiteral("Plots"),     QStringLiteral("Compare"),
        QStringLiteral("Monitor"), QStringLiteral("Providers"), QStringLiteral("Suites")};
    std::vector<std::vector<Timing>> pages(MainWindow::PageCount);
    for (int r = 0; r < repeats; ++r) {
        for (int p = 0; p < MainWindow::PageCount; ++p) {
            pages[static_cast<size_t>(p)].push_back(
                bench.measure([&]() { window.showPage(static_cast<MainWindow::Page>(p)); }));
        }
    }
    for (int p = 0; p < MainWindow::PageCount; ++p)
        bench.add(QStringLiteral("page switch → %1").arg(names[static_cast<size_t>(p)]),
                  pages[static_cast<size_t>(p)], pageTarget);

    // Run selection on the Results page: runs not shown before, then back to ones shown before.
    window.showPage(MainWindow::ResultsPageIndex);
    const auto& runs = window.snapshot()->runs;
    std::vector<db::Id> choices;
    for (int r = 0; r < repeats; ++r)
        choices.push_back(
            runs[(runs.size() * static_cast<size_t>(r + 1)) / static_cast<size_t>(repeats + 2)]
                .run.id);
    const db::Id newest = runs.back().run.id;
    std::vector<Timing> fresh;
    std::vector<Timing> again;
    for (db::Id id : choices)
        fresh.push_back(bench.measure([&]() { window.setRunScope(id); }));
    for (db::Id id : choices)
        again.push_back(bench.measure([&]() { window.setRunScope(id); }));
    bench.add(QStringLiteral("run selection (a run not shown before), Results page"), fresh,
              QStringLiteral("no stall > 250"));
    bench.add(QStringLiteral("run selection (a run shown before), Results page"), again,
              pageTarget);
    bench.measure([&]() { window.setRunScope(newest); });

    // Results filters.
    gui::ResultsPage* results = window.resultsPage();
    using VF = gui::ResultsFilterProxy::VerdictFilter;
    std::vector<Timing> verdict;
    std::vector<Timing> search;
    std::vector<Timing> level;
    for (int r = 0; r < repeats; ++r) {
        verdict.push_back(bench.measure([&]() {
            results->setVerdictFilterKey(gui::ResultsFilterProxy::verdictFilterKey(VF::Faster));
        }));
        verdict.push_back(bench.measure([&]() {
            results->setVerdictFilterKey(gui::ResultsFilterProxy::verdictFilterKey(VF::All));
        }));
        search.push_back(
            bench.measure([&]() { results->setSearchText(QStringLiteral("task-1")); }));
        search.push_back(bench.measure([&]() { results->setSearchText({}); }));
        level.push_back(bench.measure([&]() { results->setLevelFilter(2); }));
        level.push_back(bench.measure([&]() { results->setLevelFilter(0); }));
    }
    bench.add(QStringLiteral("results filter: verdict"), verdict, pageTarget);
    bench.add(QStringLiteral("results filter: text search"), search, pageTarget);
    bench.add(QStringLiteral("results filter: level"), level, pageTarget);

    // Plot refreshes: each plot recomputed from the snapshot in scope and redrawn.
    window.showPage(MainWindow::PlotsPageIndex);
    gui::PlotsPage* plots = window.plotsPage();
    std::vector<Timing> distribution, fastP, costScore, turns, headToHead;
    for (int r = 0; r < repeats; ++r) {
        const auto snapshot = window.snapshot();
        const db::Id scope = window.runScope();
        distribution.push_back(bench.measure([&]() {
            plots->distributionPlot()->setSnapshot(snapshot, scope);
            plots->distributionPlot()->replot();
        }));
        fastP.push_back(bench.measure([&]() {
            plots->fastPPlot()->setSnapshot(snapshot, scope);
            plots->fastPPlot()->replot();
        }));
        costScore.push_back(bench.measure([&]() {
            plots->costScorePlot()->setSnapshot(snapshot, scope);
            plots->costScorePlot()->replot();
        }));
        turns.push_back(bench.measure([&]() {
            plots->turnsSpeedupPlot()->setSnapshot(snapshot, scope);
            plots->turnsSpeedupPlot()->replot();
        }));
    }
    window.showPage(MainWindow::ComparePageIndex);
    for (int r = 0; r < repeats; ++r) {
        headToHead.push_back(bench.measure(
            [&]() { window.comparePage()->setBaseline(metrics::Baseline::Compile); }));
        headToHead.push_back(
            bench.measure([&]() { window.comparePage()->setBaseline(metrics::Baseline::Eager); }));
    }
    bench.add(QStringLiteral("plot refresh: speedup distribution"), distribution, pageTarget);
    bench.add(QStringLiteral("plot refresh: fast_p curves"), fastP, pageTarget);
    bench.add(QStringLiteral("plot refresh: cost vs score"), costScore, pageTarget);
    bench.add(QStringLiteral("plot refresh: turns vs speedup"), turns, pageTarget);
    bench.add(QStringLiteral("plot refresh: head to head (Compare, baseline change)"), headToHead,
              pageTarget);

    // Every run at once, the heaviest scope.
    window.showPage(MainWindow::ResultsPageIndex);
    const Timing all = bench.measure([&]() { window.setRunScope(0); });
    bench.add(QStringLiteral("scope → all runs, Results page"), {all},
              QStringLiteral("no stall > 250"));

    std::int64_t attempts = 0;
    for (const auto& r : window.snapshot()->runs)
        attempts += r.attempts;
    out << "database: " << QFileInfo(path).fileName() << ", " << attempts << " attempts in "
        << window.snapshot()->runs.size() << " runs; median of " << repeats << " repeats"
        << Qt::endl;
    bench.print(out);
    out << "peak RSS after open: " << fmt(rssAfterOpen)
        << " MB; peak RSS at the end: " << fmt(peakRssMb()) << " MB" << Qt::endl;
    return 0;
}

} // namespace
} // namespace kb::bench

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("KernelBenchStudioBench"));
    QCoreApplication::setApplicationName(QStringLiteral("bench_gui"));
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2 || !QFileInfo::exists(args.at(1))) {
        QTextStream(stderr)
            << "usage: bench_gui DATABASE [repeats]\n"
               "Write the database first: bench_engine db DATABASE 1000000 (or 100000)\n";
        return 2;
    }
    return kb::bench::run(args.at(1), args.size() > 2 ? std::max(1, args.at(2).toInt()) : 5);
}
