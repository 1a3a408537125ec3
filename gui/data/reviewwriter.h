#pragma once
// Writes a person's decision on a suspicious attempt. The only write the GUI makes.

#include "db/records.h"

#include <QString>

namespace kb::gui {

enum class Review { None, Accepted, Rejected };

QString reviewName(Review review); // "none", "accepted", "rejected"

// Opens the database read-write for the duration of the write. Returns an empty string on
// success, else a readable error.
QString writeReview(const QString& databasePath, db::Id attemptId, Review review,
                    const QString& note);

} // namespace kb::gui
