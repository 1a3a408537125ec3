#include "attemptdetailloader.h"

#include "db/database.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"

#include <QCoreApplication>

namespace kb::gui {

AttemptDetailLoadResult loadAttemptDetail(const QString& path, db::Id attemptId) {
    AttemptDetailLoadResult result;
    try {
        db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
        if (!db::RunRepository(database.connection()).attempt(attemptId)) {
            result.error = QCoreApplication::translate("kb::gui::AttemptDetailLoader",
                                                       "Attempt %1 is not in the database.")
                               .arg(attemptId);
            return result;
        }
        result.detail = std::make_shared<const db::AttemptDetail>(
            db::EvaluationRepository(database.connection()).detail(attemptId));
    } catch (const std::exception& e) {
        result.error = QCoreApplication::translate("kb::gui::AttemptDetailLoader",
                                                   "Cannot read attempt %1: %2")
                           .arg(attemptId)
                           .arg(QString::fromStdString(e.what()));
    }
    return result;
}

AttemptDetailLoader::AttemptDetailLoader(QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<kb::gui::AttemptDetailPtr>();
}

void AttemptDetailLoader::load(const QString& path, db::Id attemptId) {
    m_tracker.start([path, attemptId]() { return loadAttemptDetail(path, attemptId); },
                    [this](AttemptDetailLoadResult result) {
                        if (result.detail)
                            Q_EMIT loaded(result.detail);
                        else
                            Q_EMIT failed(result.error);
                    });
}

} // namespace kb::gui
