#pragma once
// Providers, models, suites and tasks: what a run is made of.

#include "records.h"
#include "sqlite.h"

#include <optional>
#include <vector>

namespace kb::db {

// The prefix of the names that only built-in suites may take.
inline constexpr const char* kBuiltinSuitePrefix = "builtin:";

class CatalogRepository {
public:
    explicit CatalogRepository(Connection& conn)
        : m_conn(conn) {}

    // Insert or update by name; returns the id.
    Id upsertProvider(const ProviderRow& provider);
    Id upsertModel(const ModelRow& model); // by (providerId, name)
    std::vector<ProviderRow> providers();
    std::vector<ModelRow> models();
    std::optional<ModelRow> modelByName(const std::string& name);
    std::optional<ModelRow> model(Id modelId);

    // Editing by id (the GUI's provider and model pages). A name is unique among providers, and
    // among the models of one provider; *NameTaken say whether another row (not exceptId) has it.
    bool providerNameTaken(const std::string& name, Id exceptId = 0);
    bool modelNameTaken(Id providerId, const std::string& name, Id exceptId = 0);
    // Rewrites every column of the row with provider.id; false when there is no such row.
    bool updateProvider(const ProviderRow& provider);
    bool updateModel(const ModelRow& model);
    // The stored attempts of the provider's models, of one model: what removing them would orphan.
    int providerAttemptCount(Id providerId);
    int modelAttemptCount(Id modelId);
    // Removes a provider and its models in one transaction; a model with attempts cannot be
    // removed (Error, nothing removed).
    void removeProvider(Id providerId);
    void removeModel(Id modelId);

    // A user's suite, by name. Throws Error when the name is a built-in suite's or reserved.
    Id upsertSuite(const SuiteRow& suite);
    // A suite shipped with the program. It never takes over a user's suite: when a user's suite
    // has its name, the built-in one is stored as "builtin:NAME". Returns the row as stored.
    SuiteRow upsertBuiltinSuite(const SuiteRow& suite);
    bool isBuiltinSuite(Id suiteId);
    // Stores every task of a suite in one transaction and returns the ids of their current
    // versions. A task whose name, level or source changed gets a new version when some attempt
    // used the old one (which stays, for the runs that evaluated it), else it is updated in place.
    // Throws Error, storing nothing, when two tasks share an id or a row is invalid.
    TaskImport importTasks(Id suiteId, const std::vector<TaskRow>& tasks);
    std::vector<Id> upsertTasks(Id suiteId, const std::vector<TaskRow>& tasks);
    std::vector<SuiteRow> suites();
    std::optional<SuiteRow> suiteByName(const std::string& name);
    // The current version of every task of the suite.
    std::vector<TaskRow> tasks(Id suiteId);
    // Every version of one task, oldest first.
    std::vector<TaskRow> taskVersions(Id suiteId, const std::string& key);
    std::optional<TaskRow> task(Id taskId);

    // Task validation results, one per (task, device); storing replaces the previous one.
    void storeTaskValidation(const TaskValidationRow& row);
    std::vector<TaskValidationRow> taskValidations(Id taskId);
    // Every validation of the suite's tasks whose flags are not empty.
    std::vector<TaskValidationRow> flaggedTasks(Id suiteId);
    // The flags of every stored validation, with the task's key, by key then device (details are
    // left empty: they are the whole report, which overviews do not need).
    std::vector<TaskValidationRow> validationFlags();

private:
    Connection& m_conn;
};

} // namespace kb::db
