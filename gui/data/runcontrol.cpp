#include "runcontrol.h"

#include "db/database.h"
#include "db/queuerepository.h"
#include "db/runrepository.h"

#include <QCoreApplication>

namespace kb::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kb::gui::RunControl", text);
}

} // namespace

QString controlRunInDatabase(const QString& databasePath, db::Id runId, RunAction action) {
    try {
        db::Database database(databasePath.toStdString());
        auto& conn = database.connection();
        db::RunRepository runs(conn);
        const auto run = runs.run(runId);
        if (!run)
            return tr("Run %1 is no longer in the database.").arg(runId);
        const std::string& status = run->status;
        if (status == "finished" || status == "failed" || status == "cancelled")
            return tr("Run %1 is already %2.").arg(runId).arg(QString::fromStdString(status));
        switch (action) {
        case RunAction::Pause:
            if (status != "paused")
                runs.setRunStatus(runId, "paused");
            break;
        case RunAction::Resume:
            if (status != "paused")
                return tr("Run %1 is not paused.").arg(runId);
            runs.setRunStatus(runId, "running");
            break;
        case RunAction::Cancel: {
            db::Transaction tx(conn);
            db::QueueRepository(conn).cancelAttempts(runId, {}, {}, "cancelled by the user");
            runs.setRunStatus(runId, "cancelled", "cancelled by the user");
            tx.commit();
            break;
        }
        }
    } catch (const std::exception& e) {
        return tr("Could not change run %1: %2").arg(runId).arg(QString::fromStdString(e.what()));
    }
    return {};
}

} // namespace kb::gui
