#include "runplan.h"

#include <QCoreApplication>
#include <QLocale>
#include <algorithm>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::RunPlan", text);
}

// Model calls an attempt makes, as the estimate assumes.
int callsPerAttempt(const RunPlan& plan) {
    if (plan.mode == engine::kModeMultiTurn)
        return std::max(1, plan.turns);
    if (plan.mode == engine::kModeAgent)
        return std::max(1, std::min(plan.maxTurns, 20));
    return 1;
}

} // namespace

std::vector<const TaskInfo*> plannedTasks(const Catalog& catalog, const RunPlan& plan) {
    std::vector<const TaskInfo*> out;
    if (plan.suiteId == 0)
        return out;
    const QString filter = plan.taskFilter.trimmed();
    for (const TaskInfo* t : catalog.tasksOf(plan.suiteId)) {
        if (!plan.levels.isEmpty() && !plan.levels.contains(t->task.level))
            continue;
        if (!filter.isEmpty() &&
            !QString::fromStdString(t->task.key).contains(filter, Qt::CaseInsensitive) &&
            !QString::fromStdString(t->task.name).contains(filter, Qt::CaseInsensitive))
            continue;
        out.push_back(t);
    }
    return out;
}

std::optional<engine::RunSpec> toRunSpec(const Catalog& catalog, const RunPlan& plan,
                                         QString* error) {
    const db::SuiteRow* suite = nullptr;
    for (const auto& s : catalog.suites)
        suite = s.id == plan.suiteId ? &s : suite;
    if (!suite) {
        *error = tr("Choose a suite.");
        return std::nullopt;
    }
    if (plan.models.isEmpty()) {
        *error = tr("Choose at least one model.");
        return std::nullopt;
    }
    for (const auto& m : plan.models) {
        if (!catalog.findModelByName(m)) {
            *error = tr("The model '%1' is not in the catalog.").arg(m);
            return std::nullopt;
        }
    }
    const auto tasks = plannedTasks(catalog, plan);
    if (tasks.empty()) {
        *error = tr("No task of '%1' matches the levels and filter.")
                     .arg(QString::fromStdString(suite->name));
        return std::nullopt;
    }
    if (plan.samples < 1) {
        *error = tr("Samples must be at least 1.");
        return std::nullopt;
    }
    engine::RunSpec spec;
    spec.name = plan.name;
    spec.suite = QString::fromStdString(suite->name);
    spec.models = plan.models;
    spec.levels = plan.levels;
    if (!plan.taskFilter.trimmed().isEmpty()) {
        for (const TaskInfo* t : tasks)
            spec.tasks << QString::fromStdString(t->task.key);
    }
    spec.samples = plan.samples;
    spec.mode = plan.mode;
    spec.generation.turns = plan.turns;
    spec.generation.maxTurns = plan.maxTurns;
    spec.generation.skillName = plan.mode == engine::kModeAgent ? plan.skillFile : QString();
    spec.generation.maxTokens = plan.maxTokens;
    if (plan.mode != engine::kModeAgent)
        spec.generation.promptTemplate = plan.promptTemplate;
    spec.settings.setPrecision(plan.precision);
    spec.settings.allowTf32 = plan.tf32;
    spec.settings.compileBaseline = plan.baseline != BaselineMode::Eager;
    spec.settings.compileMode = plan.baseline == BaselineMode::MaxAutotune
                                    ? QStringLiteral("max-autotune")
                                : plan.compileMode.isEmpty() ? QStringLiteral("default")
                                                             : plan.compileMode;
    spec.settings.device =
        plan.backend == Backend::Cpu ? QStringLiteral("cpu") : QStringLiteral("cuda");
    spec.settings.timingTrials = plan.backend == Backend::Cpu ? 30 : 100;
    spec.settings.backend =
        plan.backend == Backend::Slurm ? QStringLiteral("slurm") : QStringLiteral("local");
    spec.settings.slurmPartition = plan.slurmPartition;
    return spec;
}

QJsonObject launcherSettings(const RunPlan& plan) {
    QJsonObject o;
    if (!plan.taskFilter.trimmed().isEmpty())
        o.insert(QStringLiteral("task_filter"), plan.taskFilter.trimmed());
    o.insert(QStringLiteral("baseline_mode"),
             plan.baseline == BaselineMode::Eager             ? QStringLiteral("eager")
             : plan.baseline == BaselineMode::EagerAndCompile ? QStringLiteral("eager+compile")
                                                              : QStringLiteral("max-autotune"));
    return o;
}

RunEstimate estimateRun(const Catalog& catalog, const RunPlan& plan) {
    RunEstimate e;
    e.tasks = static_cast<int>(plannedTasks(catalog, plan).size());
    const int perModel = e.tasks * std::max(1, plan.samples);
    e.attempts = perModel * static_cast<int>(plan.models.size());
    const int calls = callsPerAttempt(plan);
    double cost = 0;
    bool priced = true;
    const QLocale locale;
    for (const auto& name : plan.models) {
        const db::ModelRow* m = catalog.findModelByName(name);
        if (!m)
            continue;
        const ModelUsage u = catalog.usageOf(m->id);
        qint64 in = kDefaultInputTokensPerCall * calls;
        qint64 out = kDefaultOutputTokensPerCall * calls;
        if (u.turns > 0) {
            // measured per model call, scaled to the calls this mode makes
            in = u.inputTokens / u.turns * calls;
            out = u.outputTokens / u.turns * calls;
            e.notes << tr("%1: %2 in / %3 out tokens per call, from %4 stored calls")
                           .arg(name, locale.toString(u.inputTokens / u.turns),
                                locale.toString(u.outputTokens / u.turns))
                           .arg(u.turns);
        } else {
            e.notes << tr("%1: no calls stored yet, assuming %2 in / %3 out tokens per call")
                           .arg(name, locale.toString(kDefaultInputTokensPerCall),
                                locale.toString(kDefaultOutputTokensPerCall));
        }
        e.inputTokens += in * perModel;
        e.outputTokens += out * perModel;
        if (m->priceInPerMTok || m->priceOutPerMTok) {
            cost += (static_cast<double>(in * perModel) * m->priceInPerMTok.value_or(0) +
                     static_cast<double>(out * perModel) * m->priceOutPerMTok.value_or(0)) /
                    1e6;
        } else if (QString::fromStdString(m->providerKind) != QLatin1String("demo") &&
                   QString::fromStdString(m->providerKind) != QLatin1String("replay")) {
            priced = false;
            e.notes << tr("%1 has no prices: cost unknown").arg(name);
        }
        const double seconds =
            u.finished > 0 ? u.wallSeconds / u.finished : kDefaultSecondsPerAttempt;
        if (u.finished == 0)
            e.notes << tr("%1: no finished attempts yet, assuming %2 s per attempt")
                           .arg(name)
                           .arg(kDefaultSecondsPerAttempt);
        e.seconds += seconds * perModel;
    }
    if (priced)
        e.costUsd = cost;
    return e;
}

QString RunEstimate::text() const {
    const QLocale locale;
    QString s = tr("%1 tasks → %2 attempts; about %3 input and %4 output tokens; cost %5; about %6 "
                   "of attempt time "
                   "(attempts one after another; parallel builds and GPUs shorten it).")
                    .arg(tasks)
                    .arg(attempts)
                    .arg(locale.toString(inputTokens), locale.toString(outputTokens),
                         costUsd ? QStringLiteral("$%1").arg(*costUsd, 0, 'f', 2) : tr("unknown"));
    const auto secs = static_cast<qint64>(seconds);
    const QString time = secs >= 3600 ? tr("%1 h %2 min").arg(secs / 3600).arg((secs % 3600) / 60)
                         : secs >= 60 ? tr("%1 min").arg(secs / 60)
                                      : tr("%1 s").arg(secs);
    s = s.arg(time);
    return s;
}

} // namespace kb::gui
