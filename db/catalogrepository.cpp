#include "catalogrepository.h"

#include <set>

namespace kb::db {
namespace {

ModelRow readModel(const Statement& q) {
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

TaskRow readTask(const Statement& q) {
    TaskRow t;
    t.id = q.int64(0);
    t.suiteId = q.int64(1);
    t.key = q.text(2);
    t.name = q.text(3);
    t.level = q.int32(4);
    t.source = q.text(5);
    t.sourceHash = q.text(6);
    t.metadataJson = q.text(7);
    t.version = q.int32(8);
    t.current = q.int64(9) != 0;
    return t;
}

constexpr const char* kTaskSelect = "SELECT id, suite_id, task_key, name, level, source, "
                                    "source_hash, metadata_json, version, current FROM tasks ";

} // namespace

Id CatalogRepository::upsertProvider(const ProviderRow& p) {
    Statement q(m_conn, "INSERT INTO providers(name, kind, base_url, settings_json) "
                        "VALUES (?,?,?,?) ON CONFLICT(name) DO UPDATE SET kind=excluded.kind, "
                        "base_url=excluded.base_url, settings_json=excluded.settings_json "
                        "RETURNING id");
    q.bind(1, p.name).bind(2, p.kind).bind(3, p.baseUrl).bind(4, p.settingsJson);
    q.step();
    return q.int64(0);
}

Id CatalogRepository::upsertModel(const ModelRow& m) {
    Statement q(m_conn, "INSERT INTO models(provider_id, name, label, price_in_per_mtok, "
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

std::vector<ProviderRow> CatalogRepository::providers() {
    Statement q(m_conn,
                "SELECT id, name, kind, base_url, settings_json FROM providers ORDER BY name");
    std::vector<ProviderRow> out;
    while (q.step())
        out.push_back({q.int64(0), q.text(1), q.text(2), q.text(3), q.text(4)});
    return out;
}

std::vector<ModelRow> CatalogRepository::models() {
    Statement q(m_conn, std::string(kModelSelect) + "ORDER BY m.name");
    std::vector<ModelRow> out;
    while (q.step())
        out.push_back(readModel(q));
    return out;
}

std::optional<ModelRow> CatalogRepository::modelByName(const std::string& name) {
    Statement q(m_conn, std::string(kModelSelect) + "WHERE m.name = ? ORDER BY m.id LIMIT 1");
    q.bind(1, name);
    if (!q.step())
        return std::nullopt;
    return readModel(q);
}

std::optional<ModelRow> CatalogRepository::model(Id modelId) {
    Statement q(m_conn, std::string(kModelSelect) + "WHERE m.id = ?");
    q.bind(1, modelId);
    if (!q.step())
        return std::nullopt;
    return readModel(q);
}

bool CatalogRepository::providerNameTaken(const std::string& name, Id exceptId) {
    Statement q(m_conn, "SELECT EXISTS (SELECT 1 FROM providers WHERE name = ? AND id != ?)");
    q.bind(1, name).bind(2, exceptId);
    q.step();
    return q.int64(0) != 0;
}

bool CatalogRepository::modelNameTaken(Id providerId, const std::string& name, Id exceptId) {
    Statement q(m_conn, "SELECT EXISTS (SELECT 1 FROM models WHERE provider_id = ? AND name = ? "
                        "AND id != ?)");
    q.bind(1, providerId).bind(2, name).bind(3, exceptId);
    q.step();
    return q.int64(0) != 0;
}

bool CatalogRepository::updateProvider(const ProviderRow& p) {
    Statement q(m_conn, "UPDATE providers SET name = ?, kind = ?, base_url = ?, settings_json = ? "
                        "WHERE id = ?");
    q.bind(1, p.name).bind(2, p.kind).bind(3, p.baseUrl).bind(4, p.settingsJson).bind(5, p.id);
    q.exec();
    return m_conn.changes() == 1;
}

bool CatalogRepository::updateModel(const ModelRow& m) {
    Statement q(m_conn, "UPDATE models SET provider_id = ?, name = ?, label = ?, "
                        "price_in_per_mtok = ?, price_out_per_mtok = ?, settings_json = ? "
                        "WHERE id = ?");
    q.bind(1, m.providerId).bind(2, m.name).bind(3, m.label).bind(4, m.priceInPerMTok);
    q.bind(5, m.priceOutPerMTok).bind(6, m.settingsJson).bind(7, m.id).exec();
    return m_conn.changes() == 1;
}

int CatalogRepository::providerAttemptCount(Id providerId) {
    Statement q(m_conn, "SELECT count(*) FROM attempts a JOIN models m ON m.id = a.model_id "
                        "WHERE m.provider_id = ?");
    q.bind(1, providerId);
    q.step();
    return q.int32(0);
}

int CatalogRepository::modelAttemptCount(Id modelId) {
    Statement q(m_conn, "SELECT count(*) FROM attempts WHERE model_id = ?");
    q.bind(1, modelId);
    q.step();
    return q.int32(0);
}

void CatalogRepository::removeProvider(Id providerId) {
    Transaction tx(m_conn);
    Statement models(m_conn, "DELETE FROM models WHERE provider_id = ?");
    models.bind(1, providerId).exec();
    Statement provider(m_conn, "DELETE FROM providers WHERE id = ?");
    provider.bind(1, providerId).exec();
    tx.commit();
}

void CatalogRepository::removeModel(Id modelId) {
    Statement q(m_conn, "DELETE FROM models WHERE id = ?");
    q.bind(1, modelId).exec();
}

Id CatalogRepository::upsertSuite(const SuiteRow& s) {
    if (s.name.rfind(kBuiltinSuitePrefix, 0) == 0) {
        throw Error("suite names starting with '" + std::string(kBuiltinSuitePrefix) +
                    "' are reserved for the suites shipped with KernelBench Studio; choose "
                    "another name");
    }
    Statement builtin(m_conn, "SELECT builtin FROM suites WHERE name = ?");
    builtin.bind(1, s.name);
    if (builtin.step() && builtin.int64(0) != 0) {
        throw Error("'" + s.name +
                    "' is the name of a suite shipped with KernelBench Studio; give yours "
                    "another name (suite import DIR --name NAME); nothing was imported");
    }
    Statement q(m_conn, "INSERT INTO suites(name, description, source) VALUES (?,?,?) "
                        "ON CONFLICT(name) DO UPDATE SET description=excluded.description, "
                        "source=excluded.source RETURNING id");
    q.bind(1, s.name).bind(2, s.description).bind(3, s.source);
    q.step();
    return q.int64(0);
}

SuiteRow CatalogRepository::upsertBuiltinSuite(const SuiteRow& s) {
    const std::string reserved = kBuiltinSuitePrefix + s.name;
    Statement existing(m_conn, "SELECT name FROM suites WHERE builtin = 1 AND name IN (?1, ?2) "
                               "ORDER BY name = ?1 DESC LIMIT 1");
    existing.bind(1, s.name).bind(2, reserved);
    std::string name;
    if (existing.step()) {
        name = existing.text(0);
    } else {
        // A user's suite of the same name keeps its name; the built-in one takes the reserved.
        Statement taken(m_conn, "SELECT count(*) FROM suites WHERE name = ?");
        taken.bind(1, s.name);
        taken.step();
        name = taken.int64(0) == 0 ? s.name : reserved;
    }
    Statement q(m_conn, "INSERT INTO suites(name, description, source, builtin) VALUES (?,?,?,1) "
                        "ON CONFLICT(name) DO UPDATE SET description=excluded.description, "
                        "source=excluded.source WHERE builtin = 1 RETURNING id");
    q.bind(1, name).bind(2, s.description).bind(3, s.source);
    if (!q.step())
        throw Error("cannot store the built-in suite '" + s.name + "': its name is taken");
    return SuiteRow{q.int64(0), name, s.description, s.source};
}

bool CatalogRepository::isBuiltinSuite(Id suiteId) {
    Statement q(m_conn, "SELECT builtin FROM suites WHERE id = ?");
    q.bind(1, suiteId);
    return q.step() && q.int64(0) != 0;
}

std::vector<Id> CatalogRepository::upsertTasks(Id suiteId, const std::vector<TaskRow>& tasks) {
    return importTasks(suiteId, tasks).ids;
}

TaskImport CatalogRepository::importTasks(Id suiteId, const std::vector<TaskRow>& tasks) {
    std::set<std::string> keys;
    for (const auto& t : tasks) {
        if (!keys.insert(t.key).second) {
            throw Error("task id '" + t.key +
                        "' appears twice in the suite; every task needs its own id (nothing was "
                        "imported)");
        }
    }
    Transaction tx(m_conn);
    Statement current(m_conn, "SELECT id, name, level, source, source_hash, "
                              "EXISTS (SELECT 1 FROM attempts WHERE task_id = tasks.id) "
                              "FROM tasks WHERE suite_id = ? AND task_key = ? AND current = 1");
    Statement insert(m_conn,
                     "INSERT INTO tasks(suite_id, task_key, name, level, source, "
                     "source_hash, metadata_json, version, current) VALUES (?1,?2,?3,?4,?5,?6,?7,"
                     "(SELECT coalesce(max(version), 0) + 1 FROM tasks WHERE suite_id = ?1 "
                     "AND task_key = ?2), 1)");
    Statement retire(m_conn, "UPDATE tasks SET current = 0 WHERE id = ?");
    Statement rewrite(m_conn, "UPDATE tasks SET name = ?, level = ?, source = ?, source_hash = ?, "
                              "metadata_json = ? WHERE id = ?");
    Statement forget(m_conn, "DELETE FROM task_validations WHERE task_id = ?");
    Statement describe(m_conn, "UPDATE tasks SET metadata_json = ? WHERE id = ?");
    TaskImport out;
    for (const auto& t : tasks) {
        current.bind(1, suiteId).bind(2, t.key);
        std::optional<Id> existing;
        bool same = false;
        bool used = false;
        if (current.step()) {
            existing = current.int64(0);
            same = current.text(1) == t.name && current.int32(2) == t.level &&
                   current.text(3) == t.source && current.text(4) == t.sourceHash;
            used = current.int64(5) != 0;
        }
        current.reset();
        if (existing && same) {
            // Only the description (file, ops) may differ: what was evaluated stays as it was.
            describe.bind(1, t.metadataJson).bind(2, *existing).exec();
            out.ids.push_back(*existing);
            ++out.unchanged;
            continue;
        }
        if (existing && !used) {
            rewrite.bind(1, t.name).bind(2, t.level).bind(3, t.source).bind(4, t.sourceHash);
            rewrite.bind(5, t.metadataJson).bind(6, *existing).exec();
            forget.bind(1, *existing).exec(); // validated against the old source
            out.ids.push_back(*existing);
            ++out.updated;
            continue;
        }
        if (existing) {
            // A run evaluated this version: it stays, and new runs take the new one.
            retire.bind(1, *existing).exec();
            ++out.versioned;
        } else {
            ++out.added;
        }
        insert.bind(1, suiteId).bind(2, t.key).bind(3, t.name).bind(4, t.level).bind(5, t.source);
        insert.bind(6, t.sourceHash).bind(7, t.metadataJson).exec();
        out.ids.push_back(m_conn.lastInsertId());
    }
    tx.commit();
    return out;
}

std::vector<TaskRow> CatalogRepository::taskVersions(Id suiteId, const std::string& key) {
    Statement q(m_conn,
                std::string(kTaskSelect) + "WHERE suite_id = ? AND task_key = ? ORDER BY version");
    q.bind(1, suiteId).bind(2, key);
    std::vector<TaskRow> out;
    while (q.step())
        out.push_back(readTask(q));
    return out;
}

std::vector<SuiteRow> CatalogRepository::suites() {
    Statement q(m_conn, "SELECT id, name, description, source FROM suites ORDER BY name");
    std::vector<SuiteRow> out;
    while (q.step())
        out.push_back({q.int64(0), q.text(1), q.text(2), q.text(3)});
    return out;
}

std::optional<SuiteRow> CatalogRepository::suiteByName(const std::string& name) {
    Statement q(m_conn, "SELECT id, name, description, source FROM suites WHERE name = ?");
    q.bind(1, name);
    if (!q.step())
        return std::nullopt;
    return SuiteRow{q.int64(0), q.text(1), q.text(2), q.text(3)};
}

std::vector<TaskRow> CatalogRepository::tasks(Id suiteId) {
    Statement q(m_conn, std::string(kTaskSelect) +
                            "WHERE suite_id = ? AND current = 1 ORDER BY level, task_key");
    q.bind(1, suiteId);
    std::vector<TaskRow> out;
    while (q.step())
        out.push_back(readTask(q));
    return out;
}

std::optional<TaskRow> CatalogRepository::task(Id taskId) {
    Statement q(m_conn, std::string(kTaskSelect) + "WHERE id = ?");
    q.bind(1, taskId);
    if (!q.step())
        return std::nullopt;
    return readTask(q);
}

namespace {

TaskValidationRow readValidation(Statement& q) {
    TaskValidationRow r;
    r.taskId = q.int64(0);
    r.device = q.text(1);
    r.flagsJson = q.text(2);
    r.detailsJson = q.text(3);
    r.checkedAt = q.text(4);
    return r;
}

std::vector<TaskValidationRow> readValidations(Statement& q) {
    std::vector<TaskValidationRow> out;
    while (q.step())
        out.push_back(readValidation(q));
    return out;
}

constexpr const char* kValidationSelect = "SELECT v.task_id, v.device, v.flags_json, "
                                          "v.details_json, v.checked_at FROM task_validations v ";

} // namespace

void CatalogRepository::storeTaskValidation(const TaskValidationRow& row) {
    Statement q(m_conn,
                "INSERT INTO task_validations(task_id, device, flags_json, details_json) VALUES "
                "(?, ?, ?, ?) "
                "ON CONFLICT(task_id, device) DO UPDATE SET flags_json = excluded.flags_json, "
                "details_json = excluded.details_json, "
                "checked_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    q.bind(1, row.taskId)
        .bind(2, row.device)
        .bind(3, row.flagsJson)
        .bind(4, row.detailsJson)
        .exec();
}

std::vector<TaskValidationRow> CatalogRepository::taskValidations(Id taskId) {
    Statement q(m_conn, std::string(kValidationSelect) + "WHERE v.task_id = ? ORDER BY v.device");
    q.bind(1, taskId);
    return readValidations(q);
}

std::vector<TaskValidationRow> CatalogRepository::flaggedTasks(Id suiteId) {
    Statement q(
        m_conn,
        std::string(kValidationSelect) +
            "JOIN tasks t ON t.id = v.task_id WHERE t.suite_id = ? AND v.flags_json <> '[]' "
            "ORDER BY t.level, t.task_key, v.device");
    q.bind(1, suiteId);
    return readValidations(q);
}

std::vector<TaskValidationRow> CatalogRepository::validationFlags() {
    Statement q(m_conn, "SELECT v.task_id, v.device, v.flags_json, v.checked_at, t.task_key "
                        "FROM task_validations v JOIN tasks t ON t.id = v.task_id "
                        "ORDER BY t.task_key, v.device, v.task_id");
    std::vector<TaskValidationRow> out;
    while (q.step()) {
        TaskValidationRow r;
        r.taskId = q.int64(0);
        r.device = q.text(1);
        r.flagsJson = q.text(2);
        r.checkedAt = q.text(3);
        r.taskKey = q.text(4);
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace kb::db
