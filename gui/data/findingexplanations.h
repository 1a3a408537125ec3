#pragma once
// Why each anti-cheat rule exists, in words for the person reviewing an attempt.

#include <QString>
#include <string>

namespace kb::gui {

// The explanation of a finding's rule; a generic sentence for rules this build does not know.
QString findingExplanation(const std::string& rule);

} // namespace kb::gui
