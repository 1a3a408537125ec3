#pragma once
// What the run launcher collects, turned into the engine's RunSpec, with a cost and time
// estimate from what the chosen models used before (or stated defaults).

#include "catalog.h"
#include "run/runtypes.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace kb::gui {

enum class BaselineMode { Eager, EagerAndCompile, MaxAutotune };
enum class Backend { LocalGpus, Cpu, Slurm };

struct RunPlan {
    QString name;
    db::Id suiteId = 0;
    QStringList models; // model names
    QList<int> levels;  // empty = every level
    QString taskFilter; // substring of task key or name; empty = every task
    QString mode = QStringLiteral("one-shot");
    int samples = 1;
    QString precision = QStringLiteral("fp32"); // its tolerance follows (1e-4 fp32, 1e-2 fp16/bf16)
    bool tf32 = false;
    BaselineMode baseline = BaselineMode::EagerAndCompile;
    QString compileMode =
        QStringLiteral("default"); // of the compile baseline (MaxAutotune: max-autotune)
    QString
        promptTemplate; // one-shot/multi-turn: built-in name or file; empty = the suite's default
    int turns = 3;      // multi-turn
    int maxTurns = 50;  // agent: model calls per attempt
    int maxTokens = 16384; // output tokens per model call
    QString skillFile;     // agent: skill name or file; empty = the default skill
    Backend backend = Backend::LocalGpus;
    QString slurmPartition;
};

// The tasks a plan selects, in suite order.
std::vector<const TaskInfo*> plannedTasks(const Catalog& catalog, const RunPlan& plan);

// The RunSpec for the engine; *error says what is missing (no model, no task, ...).
std::optional<engine::RunSpec> toRunSpec(const Catalog& catalog, const RunPlan& plan,
                                         QString* error);

// What the launcher records with the run that RunSpec cannot hold yet.
QJsonObject launcherSettings(const RunPlan& plan);

struct RunEstimate {
    int tasks = 0;
    int attempts = 0;
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    std::optional<double> costUsd; // nullopt when a model has no price
    double seconds = 0;            // attempts one after another
    QStringList notes;             // where each number comes from
    QString text() const;          // one paragraph for the launcher
};

// Defaults when a model has no history: tokens per model call, seconds per attempt.
inline constexpr qint64 kDefaultInputTokensPerCall = 3000;
inline constexpr qint64 kDefaultOutputTokensPerCall = 2000;
inline constexpr double kDefaultSecondsPerAttempt = 60;

RunEstimate estimateRun(const Catalog& catalog, const RunPlan& plan);

} // namespace kb::gui
