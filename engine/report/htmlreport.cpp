#include "htmlreport.h"

#include "headtoheadsvg.h"
#include "markdownxhtml.h"
#include "metrics/definitions.h"
#include "metrics/fastp.h"
#include "metrics/taskresult.h"
#include "pairedsection.h"
#include "runsettingssummary.h"
#include "svgplot.h"
#include "textformat.h"
#include "usagesection.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QStringList>
#include <algorithm>
#include <functional>

namespace kb::report {

namespace {

const QString kNa = QStringLiteral("n/a");

QString esc(const std::string& s) {
    return xmlEscape(QString::fromStdString(s));
}

QString pct(double v) {
    return QString::number(v * 100.0, 'f', 1) + QLatin1Char('%');
}

QString speedup(const std::optional<double>& v) {
    return v ? formatSpeedupValue(*v) : kNa;
}

QString speedupCi(const std::optional<double>& v, const std::optional<metrics::Interval>& ci) {
    if (!v)
        return kNa;
    return ci ? formatSpeedupInterval(*v, ci->low, ci->high) : formatSpeedupValue(*v);
}

// A task's best speedup with the interval of the sample that measured it.
QString taskSpeedup(const metrics::TaskResult& t, metrics::Baseline baseline) {
    const auto v = t.speedup(baseline);
    if (!v)
        return kNa;
    const auto b = t.bounds(baseline);
    return b ? formatSpeedupInterval(*v, b->low, b->high) : formatSpeedupValue(*v);
}

QString levelName(int level) {
    return level == metrics::kOverallLevel ? QStringLiteral("Overall")
                                           : QStringLiteral("Level %1").arg(level);
}

QString row(const QStringList& cells, const QString& tag = QStringLiteral("td")) {
    QString r = QStringLiteral("<tr>");
    for (const auto& c : cells)
        r += QLatin1Char('<') + tag + QLatin1Char('>') + c + QStringLiteral("</") + tag +
             QLatin1Char('>');
    return r + QStringLiteral("</tr>\n");
}

QString tableOpen() {
    return QStringLiteral(
        "<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\" width=\"100%\">\n");
}

const char* const kStyle = R"(
body { font-family: sans-serif; font-size: 10pt; margin: 1.5em; color: #222222; }
table { border-collapse: collapse; margin: 0.5em 0 1em 0; }
th, td { border: 1px solid #bbbbbb; padding: 2px 6px; text-align: right; }
th { background: #eeeeee; }
td.l, th.l { text-align: left; }
.note { color: #555555; }
.figure { margin: 0.5em 0; }
)";

// The leaderboard's columns, in two groups: what was correct and what it cost, and how fast.
// One table per level holds both; a narrow page (the PDF) gets one table per group, each led
// by the model, so that no header breaks inside a word.
QString leaderboardSection(const ReportData& data, const HtmlOptions& options) {
    const auto& b = data.leaderboard;
    QString s = QStringLiteral("<section id=\"leaderboard\">\n<h2>Leaderboard</h2>\n");
    if (b.models.empty())
        return s + QStringLiteral("<p>No attempts match the selection.</p>\n</section>\n");
    QStringList outcomeHead{QStringLiteral("Tasks"), QStringLiteral("Correct"),
                            QStringLiteral("Pass rate"), QStringLiteral("95% CI")};
    for (int k : b.passAtKs)
        outcomeHead << QStringLiteral("pass@%1").arg(k);
    QStringList speedHead;
    for (double p : b.pValues)
        speedHead << QStringLiteral("fast_%1 eager").arg(p);
    for (double p : b.pValues)
        speedHead << QStringLiteral("fast_%1 compile").arg(p);
    speedHead << QStringLiteral("Geomean eager [95% CI]")
              << QStringLiteral("Geomean compile [95% CI]") << QStringLiteral("Geomean fallback")
              << QStringLiteral("Median eager");
    const QStringList countHead{QStringLiteral("Noisy"), QStringLiteral("Suspicious"),
                                QStringLiteral("Rejected"), QStringLiteral("Cost")};

    auto outcomeCells = [&](const metrics::LeaderboardCell& c) -> QStringList {
        QStringList r{QString::number(c.tasks), QString::number(c.correct), pct(c.passRate),
                      c.passRateCi
                          ? pct(c.passRateCi->low) + QStringLiteral(" - ") + pct(c.passRateCi->high)
                          : kNa};
        for (int k : b.passAtKs) {
            const auto* v = c.passAtKAt(k);
            r << (v && v->value ? pct(*v->value) : kNa);
        }
        return r;
    };
    auto speedCells = [&](const metrics::LeaderboardCell& c) -> QStringList {
        QStringList r;
        for (double p : b.pValues) {
            const auto* f = c.fastPAt(p);
            r << (f ? pct(f->vsEager) : kNa);
        }
        for (double p : b.pValues) {
            const auto* f = c.fastPAt(p);
            r << (f && f->vsCompile ? pct(*f->vsCompile) : kNa);
        }
        r << speedupCi(c.geomeanEager, c.geomeanEagerCi)
          << speedupCi(c.geomeanCompile, c.geomeanCompileCi) << speedup(c.geomeanFallbackEager)
          << speedup(c.medianEager);
        return r;
    };
    auto countCells = [&](const metrics::LeaderboardCell& c) -> QStringList {
        return QStringList{
            QString::number(c.noisy), QString::number(c.suspicious), QString::number(c.rejected),
            QStringLiteral("$") + QString::number(c.costUsd, 'f', c.costUsd < 1.0 ? 4 : 2)};
    };
    using Cells = std::function<QStringList(const metrics::LeaderboardCell&)>;
    auto table = [&](int level, const QStringList& head, const Cells& cells) -> QString {
        QString t =
            tableOpen() + row(QStringList{QStringLiteral("Model")} + head, QStringLiteral("th"));
        for (const auto& model : b.models) {
            if (const auto* c = b.find(model, level))
                t += row(QStringList{esc(c->model)} + cells(*c));
        }
        return t + QStringLiteral("</table>\n");
    };

    std::vector<int> groups = b.levels;
    groups.push_back(metrics::kOverallLevel);
    for (int level : groups) {
        s += QStringLiteral("<h3>") + levelName(level) + QStringLiteral("</h3>\n");
        if (level == metrics::kOverallLevel) {
            QStringList weights;
            for (int l : b.levels)
                weights << QStringLiteral("L%1 %2").arg(l).arg(b.levelWeights.at(l));
            s += QStringLiteral("<p class=\"note\">Weighted over the levels (weights: %1).</p>\n")
                     .arg(weights.join(QStringLiteral(", ")));
        }
        if (options.narrowPage) {
            s += table(level, outcomeHead + countHead,
                       [&](const metrics::LeaderboardCell& c) -> QStringList {
                           return outcomeCells(c) + countCells(c);
                       });
            s += table(level, speedHead, speedCells);
        } else {
            s += table(level, outcomeHead + speedHead + countHead,
                       [&](const metrics::LeaderboardCell& c) -> QStringList {
                           return outcomeCells(c) + speedCells(c) + countCells(c);
                       });
        }
    }
    return s + QStringLiteral("</section>\n");
}

QString figure(const ReportPlot& plot) {
    return QStringLiteral("<div class=\"figure\" id=\"%1\">%2</div>\n").arg(plot.id, plot.svg);
}

// For QTextDocument: a placeholder image, scaled so that a level's two charts share a line of
// a landscape page.
QString placeholder(const ReportPlot& plot) {
    constexpr double scale = 0.65;
    return QStringLiteral("<img src=\"kbplot:%1\" width=\"%2\" height=\"%3\" alt=\"%4\"/>")
        .arg(plot.id)
        .arg(qRound(plot.width * scale))
        .arg(qRound(plot.height * scale))
        .arg(xmlEscape(plot.caption));
}

QString distributionsSection(const ReportData& data, const HtmlOptions& options) {
    QString s =
        QStringLiteral("<section id=\"distributions\">\n<h2>Speedup distributions</h2>\n"
                       "<p class=\"note\">Best-of-k speedup vs eager of every correct, timed "
                       "task, per level, on a log2 axis; the dashed line is 1x. Boxes span the "
                       "quartiles, whiskers the extremes. The fast_p curves give the share of "
                       "all tasks of the level that are correct and faster than p.</p>\n");
    auto plots = reportPlots(data);
    plots.erase(
        std::remove_if(plots.begin(), plots.end(),
                       [](const ReportPlot& p) { return p.id == QLatin1String("paired-scatter"); }),
        plots.end()); // shown in the paired section
    if (!options.imagePlaceholders) {
        for (const auto& plot : plots)
            s += figure(plot);
    } else {
        // One block per level (its distribution and its fast_p curve side by side); QTextDocument
        // treats <figure> as inline, so blocks are paragraphs.
        for (size_t i = 0; i < plots.size(); i += 2) {
            s += QStringLiteral("<p>") + placeholder(plots[i]);
            if (i + 1 < plots.size())
                s += QStringLiteral(" ") + placeholder(plots[i + 1]);
            s += QStringLiteral("</p>\n");
        }
    }
    return s + QStringLiteral("</section>\n");
}

QString tasksSection(const ReportData& data) {
    QString s = QStringLiteral("<section id=\"tasks\">\n<h2>Per-task results</h2>\n"
                               "<p class=\"note\">One row per model and task (best of k). Attempt "
                               "ids lead to the stored attempt; * marks the best sample. Speedups "
                               "show the 95% interval of the sample that measured them where "
                               "one was measured. vs published: KernelBench's published eager "
                               "time on the same GPU model / the candidate's median here (best "
                               "scoring sample), measured on another machine in another session: "
                               "a reference only, not a paired measurement; empty without a "
                               "published time for the task and GPU.</p>\n");
    s += tableOpen() +
         row({QStringLiteral("Level"), QStringLiteral("Task"), QStringLiteral("Name"),
              QStringLiteral("Model"), QStringLiteral("Result"), QStringLiteral("Speedup eager"),
              QStringLiteral("Speedup compile"), QStringLiteral("vs published"),
              QStringLiteral("Scoring / samples"), QStringLiteral("Attempts")},
             QStringLiteral("th"));
    std::map<std::pair<int, std::string>, std::string> names;
    for (const auto& rec : data.attempts)
        names[{rec.attempt.level, rec.attempt.taskKey}] = rec.attempt.taskName;
    const auto tasks = metrics::resolveTasks(data.outcomes);
    // Rows by level, task, model.
    std::vector<const metrics::TaskResult*> ordered;
    for (const auto& t : tasks)
        ordered.push_back(&t);
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
        return std::tie(a->level, a->taskId, a->model) < std::tie(b->level, b->taskId, b->model);
    });
    for (const auto* t : ordered) {
        const auto it = data.attemptsByTask.find({t->model, t->level, t->taskId});
        if (it == data.attemptsByTask.end())
            continue;
        bool anyMatch = false;
        QStringList ids;
        QStringList verdicts;
        const PublishedComparison* published = nullptr;
        for (const auto& ref : it->second) {
            anyMatch = anyMatch || ref.matchesFilter;
            const auto p = data.publishedByAttempt.find(ref.id);
            if (ref.scores && p != data.publishedByAttempt.end() &&
                (!published || p->second.speedup > published->speedup))
                published = &p->second;
            ids << QStringLiteral("#%1%2").arg(ref.id).arg(
                ref.sampleIndex == t->bestSampleIndex ? QStringLiteral("*") : QString());
            const QString v = QString::fromStdString(ref.verdict);
            if (!verdicts.contains(v))
                verdicts << v;
        }
        if (!anyMatch)
            continue;
        QString result =
            t->correct ? QStringLiteral("correct") : verdicts.join(QStringLiteral(", "));
        if (!t->correct && t->suspicious > 0)
            result += QStringLiteral(" (suspicious, not scored)");
        else if (!t->correct && t->rejected > 0 && !verdicts.contains(QStringLiteral("rejected")))
            result += QStringLiteral(" (rejected on review)");
        const auto name = names.find({t->level, t->taskId});
        s += row(
            {QString::number(t->level), esc(t->taskId),
             name != names.end() ? esc(name->second) : QString(), esc(t->model),
             xmlEscape(result) + (t->noisy > 0 ? QStringLiteral(" (noisy timing)") : QString()),
             taskSpeedup(*t, metrics::Baseline::Eager), taskSpeedup(*t, metrics::Baseline::Compile),
             published ? formatSpeedupValue(published->speedup) + QStringLiteral(" (") +
                             esc(published->device) + QLatin1Char(')')
                       : QString(),
             QStringLiteral("%1 / %2").arg(t->correctSamples).arg(t->samples),
             ids.join(QLatin1Char(' '))});
    }
    return s + QStringLiteral("</table>\n</section>\n");
}

QString definitionsSection() {
    return QStringLiteral("<section id=\"definitions\">\n<h2>Definitions</h2>\n") +
           markdownToXhtml(
               QString::fromUtf8(metrics::definitionsMarkdown().data(),
                                 static_cast<qsizetype>(metrics::definitionsMarkdown().size()))) +
           QStringLiteral("</section>\n");
}

QString jsonValueText(const QJsonValue& v) {
    if (v.isString())
        return v.toString();
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return formatNumber(v.toDouble());
    if (v.isNull() || v.isUndefined())
        return QStringLiteral("null");
    return QString::fromUtf8(v.isArray()
                                 ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                 : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
}

QString settingsSection(const ReportData& data) {
    QString s = QStringLiteral("<section id=\"settings\">\n<h2>Run settings</h2>\n");
    const auto& f = data.filter;
    QStringList levels;
    for (int l : f.levels)
        levels << QString::number(l);
    s += QStringLiteral("<p>Selection: run %1; models %2; levels %3; verdicts %4.</p>\n")
             .arg(f.runId == 0 ? QStringLiteral("all") : QString::number(f.runId),
                  f.models.isEmpty() ? QStringLiteral("all")
                                     : xmlEscape(f.models.join(QStringLiteral(", "))),
                  levels.isEmpty() ? QStringLiteral("all") : levels.join(QStringLiteral(", ")),
                  f.verdicts.isEmpty() ? QStringLiteral("all")
                                       : xmlEscape(f.verdicts.join(QStringLiteral(", "))));
    for (const auto& r : data.runs) {
        s += QStringLiteral("<h3>Run %1: %2</h3>\n").arg(r.id).arg(esc(r.name));
        s += tableOpen();
        s += row({QStringLiteral("suite"), esc(r.suiteName)});
        s += row({QStringLiteral("mode"), esc(r.mode)});
        s += row({QStringLiteral("status"), esc(r.status)});
        s += row({QStringLiteral("created"), esc(r.createdAt)});
        auto settings = publicRunSettings(r);
        // The template's full text is in the JSON export; here its name and digest say which.
        QJsonObject generation = settings.value(QStringLiteral("generation")).toObject();
        if (generation.contains(QStringLiteral("prompt_template_text"))) {
            generation.remove(QStringLiteral("prompt_template_text"));
            settings.insert(QStringLiteral("generation"), generation);
        }
        for (auto it = settings.begin(); it != settings.end(); ++it)
            s += row({xmlEscape(it.key()), xmlEscape(jsonValueText(it.value()))});
        s += QStringLiteral("</table>\n");
    }
    return s + QStringLiteral("</section>\n");
}

// What the numbers below were measured with, before them: one line per run.
QString settingsHeader(const ReportData& data) {
    QString s;
    for (const auto& r : data.runs) {
        QStringList parts;
        for (const auto& f : runSettingsFacts(r))
            parts << QStringLiteral("%1 <b>%2</b>").arg(xmlEscape(f.label), xmlEscape(f.value));
        s += QStringLiteral("<p class=\"settings\">Run %1 (%2): %3</p>\n")
                 .arg(r.id)
                 .arg(esc(r.name), parts.join(QStringLiteral("; ")));
    }
    return s;
}

QString environmentSection(const ReportData& data) {
    QString s = QStringLiteral("<section id=\"environment\">\n<h2>Hardware and software</h2>\n");
    s += QStringLiteral("<p>KernelBench Studio %1, Qt %2.</p>\n")
             .arg(QStringLiteral(KBSTUDIO_VERSION), QString::fromLatin1(qVersion()));
    if (data.environments.empty())
        return s + QStringLiteral("<p>No evaluation recorded an environment.</p>\n</section>\n");
    s += tableOpen() +
         row({QStringLiteral("Id"), QStringLiteral("Device"), QStringLiteral("Device name"),
              QStringLiteral("torch"), QStringLiteral("Python"), QStringLiteral("CUDA"),
              QStringLiteral("Driver"), QStringLiteral("Fingerprint")},
             QStringLiteral("th"));
    for (const auto& e : data.environments) {
        s += row({QString::number(e.id), esc(e.device), esc(e.deviceName), esc(e.torch),
                  esc(e.python), esc(e.cuda), esc(e.driver), esc(e.fingerprint.substr(0, 12))});
    }
    return s + QStringLiteral("</table>\n</section>\n");
}

} // namespace

std::vector<ReportPlot> reportPlots(const ReportData& data) {
    std::vector<ReportPlot> plots;
    const auto& b = data.leaderboard;
    const auto tasks = metrics::resolveTasks(data.outcomes);
    for (int level : b.levels) {
        std::vector<SpeedupGroup> groups;
        std::vector<Curve> curves;
        for (const auto& model : b.models) {
            SpeedupGroup g{QString::fromStdString(model), {}};
            for (const auto& t : tasks) {
                if (t.model == model && t.level == level && t.correct && t.speedupEager)
                    g.values.push_back(*t.speedupEager);
            }
            groups.push_back(std::move(g));
            std::vector<metrics::AttemptOutcome> outcomes;
            for (const auto& o : data.outcomes) {
                if (o.model == model && o.level == level)
                    outcomes.push_back(o);
            }
            const auto total = b.tasksPerLevel.count(level)
                                   ? std::optional<int>(b.tasksPerLevel.at(level))
                                   : std::nullopt;
            curves.push_back(
                {QString::fromStdString(model),
                 metrics::fastPCurve(outcomes, metrics::Baseline::Eager, 0.0, 3.0, 61, total)});
        }
        const QString dist = QStringLiteral("Level %1: speedup vs eager per task").arg(level);
        plots.push_back({QStringLiteral("speedups-L%1").arg(level), dist,
                         speedupDistributionSvg(dist, groups), 640, 300});
        const QString fp = QStringLiteral("Level %1: fast_p vs eager").arg(level);
        plots.push_back(
            {QStringLiteral("fastp-L%1").arg(level), fp, fastPCurveSvg(fp, curves), 640, 300});
    }
    if (data.paired && data.paired->sharedTasks() > 0) {
        const QString caption = QStringLiteral("Head to head: %1 (A) vs %2 (B)")
                                    .arg(QString::fromStdString(data.paired->modelA),
                                         QString::fromStdString(data.paired->modelB));
        plots.push_back({QStringLiteral("paired-scatter"), caption,
                         headToHeadSvg(caption, *data.paired), 420, 380});
    }
    return plots;
}

QString htmlReport(const ReportData& data, const HtmlOptions& options) {
    QString html;
    if (!options.imagePlaceholders)
        html += QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n");
    html += QStringLiteral("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                           "<meta charset=\"UTF-8\"/>\n<title>%1</title>\n<style>%2</style>\n"
                           "</head>\n<body>\n<h1>%1</h1>\n")
                .arg(xmlEscape(options.title), QString::fromLatin1(kStyle));
    if (!options.generatedAt.isEmpty())
        html += QStringLiteral("<p class=\"note\">Generated %1.</p>\n")
                    .arg(xmlEscape(options.generatedAt));
    html += settingsHeader(data);
    html += leaderboardSection(data, options);
    html += usageXhtmlSection(data);
    if (data.paired) {
        QString scatter;
        for (const auto& plot : reportPlots(data)) {
            if (plot.id == QLatin1String("paired-scatter"))
                scatter = options.imagePlaceholders
                              ? QStringLiteral("<p>") + placeholder(plot) + QStringLiteral("</p>\n")
                              : figure(plot);
        }
        QString section = pairedXhtmlSection(*data.paired);
        section.insert(section.lastIndexOf(QStringLiteral("</section>")), scatter);
        html += section;
    }
    html += distributionsSection(data, options);
    html += tasksSection(data);
    html += definitionsSection();
    html += settingsSection(data);
    html += environmentSection(data);
    html += QStringLiteral("</body>\n</html>\n");
    return html;
}

} // namespace kb::report
