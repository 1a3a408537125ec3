#include "catalogrepository.h"

namespace kb::db {
namespace {

ModelRow readModel(const Statement& q)
{
    ModelRow m;
    m.id = q.int64(0);
    m.providerId = q.int64(1);
    m.name = q.text(2);
    m.label = q.text(3);
    m.priceInPerMTok = q.optReal(4);
    m.priceOutPerMTok = q.optReal(5);
    m.settingsJson = q.text(6);
    m.providerName = q.text(7);
    m.providerKind = q.text(8);
    return m;
}

constexpr const char* kModelSelect =
    "SELECT m.id, m.provider_id, m.name, m.label, m.price_in_per_mtok, m.price_out_per_mtok, "
    "m.settings_json, p.name, p.kind FROM models m JOIN providers p ON p.id = m.provider_id ";

TaskRow readTask(const Statement& q)
{
    TaskRow t;
    t.id = q.int64(0);
    t.suiteId = q.int64(1);
    t.key = q.text(2);
    t.name = q.text(3);
    t.level = q.int32(4);
    t.source = q.text(5);
    t.sourceHash = q.text(6);
    t.metadataJson = q.text(7);
    return t;
}

constexpr const char* kTaskSelect = "SELECT id, suite_id, task_key, name, level, source, "
                                    "source_hash, metadata_json FROM tasks ";

} // namespace

Id CatalogRepository::upsertProvider(const ProviderRow& p)
{
    Statement q(m_conn, "INSERT INTO providers(name, kind, base_url, settings_json) "
                        "VALUES (?,?,?,?) ON CONFLICT(name) DO UPDATE SET kind=excluded.kind, "
                        "base_url=excluded.base_url, settings_json=excluded.settings_json "
                        "RETURNING id");
    q.bind(1, p.name).bind(2, p.kind).bind(3, p.baseUrl).bind(4, p.settingsJson);
    q.step();
    return q.int64(0);
}

Id CatalogRepository::upsertModel(const ModelRow& m)
{
    Statement q(m_conn,
                "INSERT INTO models(provider_id, name, label, price_in_per_mtok, "
                "price_out_per_mtok, settings_json) VALUES (?,?,?,?,?,?) "
                "ON CONFLICT(provider_id, name) DO UPDATE SET label=excluded.label, "
                "price_in_per_mtok=excluded.price_in_per_mtok, "
                "price_out_per_mtok=excluded.price_out_per_mtok, "
                "settings_json=excluded.settings_json RETURNING id");
    q.bind(1, m.providerId).bind(2, m.name).bind(3, m.label).bind(4, m.priceInPerMTok);
    q.bind(5, m.priceOutPerMTok).bind(6, m.settingsJson);
    q.step();
    return q.int64(0);
}

std::vector<ProviderRow> CatalogRepository::providers()
{
    Statement q(m_conn, "SELECT id, name, kind, base_url, settings_json FROM providers ORDER BY name");
    std::vector<ProviderRow> out;
    while (q.step())
        out.push_back({q.int64(0), q.text(1), q.text(2), q.text(3), q.text(4)});
    return out;
}

std::vector<ModelRow> CatalogRepository::models()
{
    Statement q(m_conn, std::string(kModelSelect) + "ORDER BY m.name");
    std::vector<ModelRow> out;
    while (q.step())
        out.push_back(readModel(q));
    return out;
}

std::optional<ModelRow> CatalogRepository::modelByName(const std::string& name)
{
    Statement q(m_conn, std::string(kModelSelect) + "WHERE m.name = ? ORDER BY m.id LIMIT 1");
    q.bind(1, name);
    if (!q.step())
        return std::nullopt;
    return readModel(q);
}

std::optional<ModelRow> CatalogRepository::model(Id modelId)
{
    Statement q(m_conn, std::string(kModelSelect) + "WHERE m.id = ?");
    q.bind(1, modelId);
    if (!q.step())
        return std::nullopt;
    return readModel(q);
}

Id CatalogRepository::upsertSuite(const SuiteRow& s)
{
    Statement q(m_conn, "INSERT INTO suites(name, description, source) VALUES (?,?,?) "
                        "ON CONFLICT(name) DO UPDATE SET description=excluded.description, "
                        "source=excluded.source RETURNING id");
    q.bind(1, s.name).bind(2, s.description).bind(3, s.source);
    q.step();
    return q.int64(0);
}

std::vector<Id> CatalogRepository::upsertTasks(Id suiteId, const std::vector<TaskRow>& tasks)
{
    Transaction tx(m_conn);
    Statement q(m_conn, "INSERT INTO tasks(suite_id, task_key, name, level, source, source_hash, "
                        "metadata_json) VALUES (?,?,?,?,?,?,?) "
                        "ON CONFLICT(suite_id, task_key) DO UPDATE SET name=excluded.name, "
                        "level=excluded.level, source=excluded.source, "
                        "source_hash=excluded.source_hash, metadata_json=excluded.metadata_json "
                        "RETURNING id");
    std::vector<Id> ids;
    for (const auto& t : tasks) {
        q.bind(1, suiteId).bind(2, t.key).bind(3, t.name).bind(4, t.level).bind(5, t.source);
        q.bind(6, t.sourceHash).bind(7, t.metadataJson);
        q.step();
        ids.push_back(q.int64(0));
        q.reset();
    }
    tx.commit();
    return ids;
}

std::vector<SuiteRow> CatalogRepository::suites()
{
    Statement q(m_conn, "SELECT id, name, description, source FROM suites ORDER BY name");
    std::vector<SuiteRow> out;
    while (q.step())
        out.push_back({q.int64(0), q.text(1), q.text(2), q.text(3)});
    return out;
}

std::optional<SuiteRow> CatalogRepository::suiteByName(const std::string& name)
{
    Statement q(m_conn, "SELECT id, name, description, source FROM suites WHERE name = ?");
    q.bind(1, name);
    if (!q.step())
        return std::nullopt;
    return SuiteRow{q.int64(0), q.text(1), q.text(2), q.text(3)};
}

std::vector<TaskRow> CatalogRepository::tasks(Id suiteId)
{
    Statement q(m_conn, std::string(kTaskSelect) + "WHERE suite_id = ? ORDER BY level, task_key");
    q.bind(1, suiteId);
    std::vector<TaskRow> out;
    while (q.step())
        out.push_back(readTask(q));
    return out;
}

std::optional<TaskRow> CatalogRepository::task(Id taskId)
{
    Statement q(m_conn, std::string(kTaskSelect) + "WHERE id = ?");
    q.bind(1, taskId);
    if (!q.step())
        return std::nullopt;
    return readTask(q);
}

namespace {

TaskValidationRow readValidation(Statement& q)
{
    TaskValidationRow r;
    r.taskId = q.int64(0);
    r.device = q.text(1);
    r.flagsJson = q.text(2);
    r.detailsJson = q.text(3);
    r.checkedAt = q.text(4);
    return r;
}

std::vector<TaskValidationRow> readValidations(Statement& q)
{
    std::vector<TaskValidationRow> out;
    while (q.step())
        out.push_back(readValidation(q));
    return out;
}

constexpr const char* kValidationSelect =
    "SELECT v.task_id, v.device, v.flags_json, v.details_json, v.checked_at FROM task_validations v ";

} // namespace

void CatalogRepository::storeTaskValidation(const TaskValidationRow& row)
{
    Statement q(m_conn, "INSERT INTO task_validations(task_id, device, flags_json, details_json) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT(task_id, device) DO UPDATE SET flags_json = excluded.flags_json, "
                        "details_json = excluded.details_json, "
                        "checked_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    q.bind(1, row.taskId).bind(2, row.device).bind(3, row.flagsJson).bind(4, row.detailsJson).exec();
}

std::vector<TaskValidationRow> CatalogRepository::taskValidations(Id taskId)
{
    Statement q(m_conn, std::string(kValidationSelect) + "WHERE v.task_id = ? ORDER BY v.device");
    q.bind(1, taskId);
    return readValidations(q);
}

std::vector<TaskValidationRow> CatalogRepository::flaggedTasks(Id suiteId)
{
    Statement q(m_conn, std::string(kValidationSelect)
                            + "JOIN tasks t ON t.id = v.task_id WHERE t.suite_id = ? AND v.flags_json <> '[]' "
                              "ORDER BY t.level, t.task_key, v.device");
    q.bind(1, suiteId);
    return readValidations(q);
}

} // namespace kb::db
