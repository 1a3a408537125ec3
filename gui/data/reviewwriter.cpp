#include "reviewwriter.h"

#include "db/database.h"
#include "db/runrepository.h"

#include <QCoreApplication>

namespace kb::gui {

QString reviewName(Review review) {
    switch (review) {
    case Review::Accepted:
        return QStringLiteral("accepted");
    case Review::Rejected:
        return QStringLiteral("rejected");
    case Review::None:
        break;
    }
    return QStringLiteral("none");
}

QString writeReview(const QString& databasePath, db::Id attemptId, Review review,
                    const QString& note) {
    try {
        db::Database database(databasePath.toStdString(), db::Database::Access::ReadWrite);
        db::RunRepository runs(database.connection());
        if (!runs.attempt(attemptId)) {
            return QCoreApplication::translate("kb::gui::ReviewWriter",
                                               "Attempt %1 is no longer in the database.")
                .arg(attemptId);
        }
        runs.setReview(attemptId, reviewName(review).toStdString(), note.toStdString());
    } catch (const std::exception& e) {
        return QCoreApplication::translate("kb::gui::ReviewWriter",
                                           "Could not save the review of attempt %1: %2")
            .arg(attemptId)
            .arg(QString::fromStdString(e.what()));
    }
    return {};
}

} // namespace kb::gui
