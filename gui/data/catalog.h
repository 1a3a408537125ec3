#pragma once
// An immutable picture of what runs are made of: providers and models (with what each model
// has used so far, for estimates), suites and tasks (with their operators, validation flags
// and stored baselines). Read off the GUI thread like the results snapshot.

#include "db/records.h"
#include "db/sqlite.h"

#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb::gui {

// What a model has used over every stored attempt.
struct ModelUsage {
    int attempts = 0;
    int finished = 0; // attempts with a start and finish time
    int turns = 0;
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    double costUsd = 0;     // attempts.cost_usd where recorded
    double wallSeconds = 0; // over the finished attempts
};

struct TaskValidation {
    std::string device;
    QStringList flags;
};

struct TaskInfo {
    db::TaskRow task;
    QStringList ops; // from the metadata, else read from the source
    std::vector<TaskValidation> validations;
    bool flagged() const;          // any validation flag on any device
    QStringList flagTexts() const; // "cuda: output_below_tolerance", ...
};

struct Catalog {
    QString databasePath;
    std::vector<db::ProviderRow> providers;
    std::vector<db::ModelRow> models;
    std::map<db::Id, ModelUsage> usage; // by model id
    std::vector<db::SuiteRow> suites;
    std::vector<TaskInfo> tasks; // every suite, by suite then level then key
    std::map<std::string, std::vector<db::BaselineRow>> baselines; // by task source hash

    const db::ProviderRow* findProvider(db::Id id) const;
    const db::ModelRow* findModel(db::Id id) const;
    const db::ModelRow* findModelByName(const QString& name) const;
    std::vector<const TaskInfo*> tasksOf(db::Id suiteId) const; // 0 = every suite
    const std::vector<db::BaselineRow>& baselinesOf(const db::TaskRow& task) const;
    ModelUsage usageOf(db::Id modelId) const;
};

using CatalogPtr = std::shared_ptr<const Catalog>;

// Reads the catalog through an open connection. Throws db::Error on failure.
Catalog readCatalog(db::Connection& conn);

// Operator names a task source uses: torch.xxx, F.xxx and nn.Xxx calls, in first-use order.
QStringList opsFromSource(const QString& source);

} // namespace kb::gui
