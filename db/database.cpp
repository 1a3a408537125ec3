#include "database.h"

#include "schema.h"

namespace kb::db {

Database::Database(const std::string& path, Access access)
{
    m_conn = std::make_unique<Connection>(path, access == Access::ReadOnly
                                                    ? Connection::Mode::ReadOnly
                                                    : Connection::Mode::ReadWrite);
    if (access == Access::ReadWrite) {
        migrate(*m_conn);
    } else if (storedSchemaVersion(*m_conn) > currentSchemaVersion()) {
        throw SchemaTooNewError("database '" + path + "' has schema version "
                                + std::to_string(storedSchemaVersion(*m_conn))
                                + ", newer than this program's "
                                + std::to_string(currentSchemaVersion()));
    }
}

int Database::schemaVersion()
{
    return storedSchemaVersion(*m_conn);
}

} // namespace kb::db
