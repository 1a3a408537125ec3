#pragma once
// Providers, models, suites and tasks: what a run is made of.

#include "records.h"
#include "sqlite.h"

#include <optional>
#include <vector>

namespace kb::db {

class CatalogRepository {
public:
    explicit CatalogRepository(Connection& conn)
        : m_conn(conn)
    {
    }

    // Insert or update by name; returns the id.
    Id upsertProvider(const ProviderRow& provider);
    Id upsertModel(const ModelRow& model); // by (providerId, name)
    std::vector<ProviderRow> providers();
    std::vector<ModelRow> models();
    std::optional<ModelRow> modelByName(const std::string& name);
    std::optional<ModelRow> model(Id modelId);

    Id upsertSuite(const SuiteRow& suite);
    // Inserts or updates every task of a suite in one transaction.
    std::vector<Id> upsertTasks(Id suiteId, const std::vector<TaskRow>& tasks);
    std::vector<SuiteRow> suites();
    std::optional<SuiteRow> suiteByName(const std::string& name);
    std::vector<TaskRow> tasks(Id suiteId);
    std::optional<TaskRow> task(Id taskId);

    // Task validation results, one per (task, device); storing replaces the previous one.
    void storeTaskValidation(const TaskValidationRow& row);
    std::vector<TaskValidationRow> taskValidations(Id taskId);
    // Every validation of the suite's tasks whose flags are not empty.
    std::vector<TaskValidationRow> flaggedTasks(Id suiteId);

private:
    Connection& m_conn;
};

} // namespace kb::db
