#include "runsummary.h"

#include "run/faults.h"

namespace kb::cli {

QString operationalSummary(db::Connection& conn, qint64 runId, const QString& dbPath,
                           int* exitCode) {
    const engine::OperationalCounts c = engine::operationalCounts(conn, runId);
    if (c.total() == 0)
        return {};
    if (exitCode && *exitCode == 0)
        *exitCode = kExitOperationalErrors;
    QString text = QStringLiteral("not evaluated, not counted in any score: ");
    QStringList parts;
    if (c.provider > 0)
        parts << QStringLiteral("%1 attempt(s) with provider errors").arg(c.provider);
    if (c.infrastructure > 0)
        parts << QStringLiteral("%1 attempt(s) with infrastructure errors").arg(c.infrastructure);
    text += parts.join(QStringLiteral(", "));
    text += QStringLiteral("\nsee them with: kbstudio-cli attempts --run %1 --verdict "
                           "provider_error (or infra_error) "
                           "--db %2\nretry them with: kbstudio-cli run --resume %1 --db %2\n")
                .arg(runId)
                .arg(dbPath);
    return text;
}

} // namespace kb::cli
