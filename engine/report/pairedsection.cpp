#include "pairedsection.h"

#include "textformat.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

namespace kb::report {

namespace {

QString name(const std::string& s) {
    return QString::fromStdString(s);
}

QString ratioText(const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 3) + QLatin1Char('x') : QStringLiteral("n/a");
}

QString ciText(const metrics::PairedComparison& c) {
    return c.ratioCi ? QStringLiteral("%1x - %2x")
                           .arg(QString::number(c.ratioCi->low, 'f', 3),
                                QString::number(c.ratioCi->high, 'f', 3))
                     : QStringLiteral("n/a");
}

QString pText(double p) {
    return p < 0.001 ? QStringLiteral("< 0.001") : QString::number(p, 'f', 3);
}

QString taskSpeedup(double value, const std::optional<metrics::SpeedupBounds>& b) {
    return b ? formatSpeedupInterval(value, b->low, b->high) : formatSpeedupValue(value);
}

QString comparisonText(metrics::TaskComparison c) {
    switch (c) {
    case metrics::TaskComparison::Win:
        return QStringLiteral("A");
    case metrics::TaskComparison::Loss:
        return QStringLiteral("B");
    case metrics::TaskComparison::Tie:
        break;
    }
    return QStringLiteral("tie");
}

QString definition() {
    return QStringLiteral(
        "Per shared task, ratio = best speedup vs eager of A / of B (a failed task counts as "
        "1.0x); "
        "a win or loss when the ratio is outside the 2% tie band and the two speedups' 95% "
        "intervals do not overlap (a tie by noise otherwise). Geomean ratio = exp(mean log "
        "ratio), 95% CI by percentile bootstrap over tasks (fixed seed). Sign test: exact "
        "two-sided, "
        "ties dropped. A model is called better only with at least 6 shared tasks (below that a "
        "two-sided sign test cannot reach p < 0.05), a CI that excludes 1 and a sign test below "
        "0.05 in the same direction; otherwise tied or not enough evidence.");
}

QString taskComparisonText(const metrics::PairedTask& t) {
    return t.tiedByNoise ? QStringLiteral("tie (intervals overlap)") : comparisonText(t.comparison);
}

} // namespace

std::optional<std::pair<QString, QString>> comparedModels(const ExportFilter& filter) {
    if (filter.compare.size() == 2)
        return std::make_pair(filter.compare.at(0), filter.compare.at(1));
    if (filter.compare.isEmpty() && filter.models.size() == 2)
        return std::make_pair(filter.models.at(0), filter.models.at(1));
    return std::nullopt;
}

metrics::PairedComparison comparePairedModels(const std::vector<metrics::AttemptOutcome>& outcomes,
                                              const QString& modelA, const QString& modelB,
                                              const metrics::PairedOptions& options) {
    const std::string a = modelA.toStdString();
    const std::string b = modelB.toStdString();
    std::vector<metrics::AttemptOutcome> outcomesA;
    std::vector<metrics::AttemptOutcome> outcomesB;
    for (const auto& o : outcomes) {
        if (o.model == a)
            outcomesA.push_back(o);
        else if (o.model == b)
            outcomesB.push_back(o);
    }
    auto result = metrics::comparePaired(outcomesA, outcomesB, options);
    result.modelA = a; // set even when one side has no outcomes
    result.modelB = b;
    return result;
}

std::vector<metrics::PairedTask> largestDifferences(const metrics::PairedComparison& comparison,
                                                    int count) {
    std::vector<metrics::PairedTask> tasks = comparison.tasks;
    std::stable_sort(tasks.begin(), tasks.end(), [](const auto& x, const auto& y) {
        return std::abs(std::log(x.ratio)) > std::abs(std::log(y.ratio));
    });
    if (count >= 0 && tasks.size() > static_cast<std::size_t>(count))
        tasks.resize(static_cast<std::size_t>(count));
    return tasks;
}

QString pairedMarkdown(const metrics::PairedComparison& c) {
    QString s = QStringLiteral("## Paired comparison: %1 (A) vs %2 (B)\n\n")
                    .arg(name(c.modelA), name(c.modelB));
    s += QStringLiteral("| Shared tasks | A wins | Ties | B wins | Geomean ratio A/B | 95% CI | "
                        "Sign test p | Verdict |\n");
    s += QStringLiteral("| -----------: | -----: | ---: | -----: | ----------------: | :----- | "
                        "----------: | :------ |\n");
    s += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
             .arg(c.sharedTasks())
             .arg(c.wins)
             .arg(c.ties)
             .arg(c.losses)
             .arg(ratioText(c.geomeanRatio), ciText(c), pText(c.signTestP),
                  name(metrics::verdictText(c.verdict, c.minSharedTasks)));
    if (c.onlyA > 0 || c.onlyB > 0)
        s += QStringLiteral("\nNot compared (attempted by one model only): A %1, B %2 tasks.\n")
                 .arg(c.onlyA)
                 .arg(c.onlyB);
    const auto top = largestDifferences(c);
    if (!top.empty()) {
        s += QStringLiteral("\nTasks where they differ most:\n\n| Level | Task | A speedup | B "
                            "speedup | A/B | Better |\n"
                            "| ----: | :--- | --------: | --------: | --: | :----- |\n");
        for (const auto& t : top) {
            s += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 |\n")
                     .arg(t.level)
                     .arg(name(t.taskId), taskSpeedup(t.speedupA, t.boundsA),
                          taskSpeedup(t.speedupB, t.boundsB), formatSpeedupValue(t.ratio),
                          taskComparisonText(t));
        }
    }
    return s + QLatin1Char('\n') + definition() + QLatin1Char('\n');
}

QString pairedXhtmlSection(const metrics::PairedComparison& c) {
    auto cell = [](const QString& text, bool left = false) -> QString {
        return (left ? QStringLiteral("<td class=\"l\">") : QStringLiteral("<td>")) + text +
               QStringLiteral("</td>");
    };
    auto head = [](const QStringList& names) -> QString {
        QString r = QStringLiteral("<tr>");
        for (const auto& n : names)
            r += QStringLiteral("<th>") + n + QStringLiteral("</th>");
        return r + QStringLiteral("</tr>\n");
    };
    const QString table =
        QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\" width=\"100%\">\n");
    QString s =
        QStringLiteral("<section id=\"paired\">\n<h2>Paired comparison: %1 (A) vs %2 (B)</h2>\n")
            .arg(xmlEscape(name(c.modelA)), xmlEscape(name(c.modelB)));
    s += table +
         head({QStringLiteral("Shared tasks"), QStringLiteral("A wins"), QStringLiteral("Ties"),
               QStringLiteral("B wins"), QStringLiteral("Geomean ratio A/B"),
               QStringLiteral("95% CI"), QStringLiteral("Sign test p"), QStringLiteral("Verdict")});
    s += QStringLiteral("<tr>") + cell(QString::number(c.sharedTasks())) +
         cell(QString::number(c.wins)) + cell(QString::number(c.ties)) +
         cell(QString::number(c.losses)) + cell(ratioText(c.geomeanRatio)) + cell(ciText(c)) +
         cell(xmlEscape(pText(c.signTestP))) +
         cell(xmlEscape(name(metrics::verdictText(c.verdict, c.minSharedTasks))), true) +
         QStringLiteral("</tr>\n</table>\n");
    if (c.onlyA > 0 || c.onlyB > 0) {
        s += QStringLiteral("<p class=\"note\">Not compared (attempted by one model only): A %1, B "
                            "%2 tasks.</p>\n")
                 .arg(c.onlyA)
                 .arg(c.onlyB);
    }
    const auto top = largestDifferences(c);
    if (!top.empty()) {
        s += QStringLiteral("<h3>Tasks where they differ most</h3>\n") + table +
             head({QStringLiteral("Level"), QStringLiteral("Task"), QStringLiteral("A speedup"),
                   QStringLiteral("B speedup"), QStringLiteral("A/B"), QStringLiteral("Better")});
        for (const auto& t : top) {
            s += QStringLiteral("<tr>") + cell(QString::number(t.level)) +
                 cell(xmlEscape(name(t.taskId)), true) +
                 cell(xmlEscape(taskSpeedup(t.speedupA, t.boundsA))) +
                 cell(xmlEscape(taskSpeedup(t.speedupB, t.boundsB))) +
                 cell(formatSpeedupValue(t.ratio)) + cell(xmlEscape(taskComparisonText(t)), true) +
                 QStringLiteral("</tr>\n");
        }
        s += QStringLiteral("</table>\n");
    }
    return s + QStringLiteral("<p class=\"note\">") + xmlEscape(definition()) +
           QStringLiteral("</p>\n</section>\n");
}

} // namespace kb::report
