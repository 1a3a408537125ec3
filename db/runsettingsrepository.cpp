#include "runsettingsrepository.h"

namespace kb::db {

void RunSettingsRepository::setSection(Id runId, const std::string& key, const std::string& json) {
    // The key is quoted as a JSON path label, so that dots or brackets in it are kept as they
    // are; a quote would end the label.
    if (key.empty() || key.find('"') != std::string::npos)
        throw Error("'" + key + "' cannot name a section of a run's settings");
    Statement q(m_conn, "UPDATE runs SET settings_json = json_set(settings_json, ?, json(?)) "
                        "WHERE id = ?");
    q.bind(1, "$.\"" + key + "\"").bind(2, json).bind(3, runId).exec();
    if (m_conn.changes() != 1)
        throw Error("no run with id " + std::to_string(runId));
}

std::string RunSettingsRepository::settings(Id runId) {
    Statement q(m_conn, "SELECT settings_json FROM runs WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? q.text(0) : std::string();
}

} // namespace kb::db
