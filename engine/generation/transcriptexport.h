#pragma once
// An attempt's stored conversation as a replay transcript: one ChatResponse per answered model
// call, rebuilt from the turns table (text, tool calls, reasoning, usage, stop reason). Fed to a
// replay provider, it runs the attempt again offline: the same answers, the tools executed again.

#include "db/records.h"
#include "db/sqlite.h"
#include "providers/chattypes.h"

namespace kb::engine {

QList<ChatResponse> attemptTranscript(db::Connection& conn, db::Id attemptId);

} // namespace kb::engine
