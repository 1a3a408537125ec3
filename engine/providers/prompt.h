#pragma once

#include <QString>

namespace kb::engine {

// The one-shot prompt: reference program, rules, output format.
QString buildOneShotPrompt(const QString& taskSource, const QString& device);

// The candidate program in a model's reply: the last fenced python block (or the only fenced
// block of any language); empty when there is none.
QString extractCandidateCode(const QString& response);

} // namespace kb::engine
