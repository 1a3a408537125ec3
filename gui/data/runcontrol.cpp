#include "runcontrol.h"

#include "db/database.h"
#include "db/runrepository.h"
#include "run/runcontrol.h"

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
        const auto run = db::RunRepository(conn).run(runId);
        if (!run)
            return tr("Run %1 is no longer in the database.").arg(runId);
        const std::string& status = run->status;
        if (engine::isEndedRunStatus(status))
            return tr("Run %1 is already %2.").arg(runId).arg(QString::fromStdString(status));
        switch (action) {
        case RunAction::Pause:
            if (run->runStatus() != db::RunStatus::Paused)
                engine::pauseRun(conn, runId);
            break;
        case RunAction::Resume:
            if (run->runStatus() != db::RunStatus::Paused)
                return tr("Run %1 is not paused.").arg(runId);
            engine::resumeRun(conn, runId);
            break;
        case RunAction::Cancel:
            engine::cancelRun(conn, runId);
            break;
        }
    } catch (const std::exception& e) {
        return tr("Could not change run %1: %2").arg(runId).arg(QString::fromStdString(e.what()));
    }
    return {};
}

} // namespace kb::gui
