#include "runcontrol.h"

#include "db/queuerepository.h"
#include "db/runrepository.h"

namespace kb::engine {

bool isEndedRunStatus(const std::string& status) {
    // Unknown names are not ended: only a stored end counts.
    const auto parsed = db::parseRunStatus(status);
    return parsed && !db::isLive(*parsed);
}

void pauseRun(db::Connection& conn, db::Id runId) {
    db::RunRepository(conn).setRunStatus(runId, db::toString(db::RunStatus::Paused));
}

void resumeRun(db::Connection& conn, db::Id runId) {
    db::RunRepository(conn).setRunStatus(runId, db::toString(db::RunStatus::Running));
}

int cancelRun(db::Connection& conn, db::Id runId) {
    db::Transaction tx(conn);
    const int n = db::QueueRepository(conn).cancelAttempts(runId, {}, {}, kCancelledByUser);
    db::RunRepository(conn).setRunStatus(runId, db::toString(db::RunStatus::Cancelled),
                                         kCancelledByUser);
    tx.commit();
    return n;
}

std::string attemptSelectionText(const std::string& model, const std::string& task) {
    return model.empty()  ? "task " + task
           : task.empty() ? "model " + model
                          : "model " + model + ", task " + task;
}

int cancelRunAttempts(db::Connection& conn, db::Id runId, const std::string& model,
                      const std::string& task) {
    return db::QueueRepository(conn).cancelAttempts(runId, model, task,
                                                    std::string(kCancelledByUser) + " (" +
                                                        attemptSelectionText(model, task) + ")");
}

std::set<db::Id> cancelledAmong(db::Connection& conn, const std::vector<db::Id>& attemptIds) {
    std::set<db::Id> out;
    for (const auto& [id, status] : db::QueueRepository(conn).attemptStatuses(attemptIds))
        if (db::attemptStatusFromString(status) == db::AttemptStatus::Cancelled)
            out.insert(id);
    return out;
}

void setRunPriority(db::Connection& conn, db::Id runId, int priority) {
    db::QueueRepository(conn).setRunPriority(runId, priority);
}

int setAttemptPriority(db::Connection& conn, db::Id runId, int priority, const std::string& model,
                       const std::string& task) {
    return db::QueueRepository(conn).setAttemptPriority(runId, priority, model, task);
}

} // namespace kb::engine
