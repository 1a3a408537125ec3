#pragma once
// An attempt's conversation as HTML for the transcript view: one section per turn with its role,
// tokens (cache included), latency and cost, the prompt, the model's reasoning and response, and
// every tool call with its arguments and result.

#include "db/records.h"

#include <QString>
#include <vector>

namespace kb::gui {

QString transcriptHtml(const std::vector<db::TurnRow>& turns);

} // namespace kb::gui
