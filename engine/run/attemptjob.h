#pragma once
// One attempt in the hands of the run engine: what it is, where its files are, and its
// generation (the conversation, the slot it holds while the first candidate is written, and the
// turns evaluated so far).

#include "db/records.h"
#include "generation/sessionfactory.h"
#include "turntracker.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <memory>

namespace kb::engine {

struct AttemptJob {
    db::AttemptRow attempt;
    db::TaskRow task;
    QString code;
    QString dir;
    QString resultPath;
    SessionHandle session;
    std::shared_ptr<void> generationSlot;
    TurnTracker turns;         // multi-turn keeps the best correct candidate
    QList<QByteArray> secrets; // the provider's keys: redacted from the candidate's code too
};

} // namespace kb::engine
