#pragma once

#include <string_view>

namespace kb::metrics {

// The written definition of every metric, as Markdown: the text of docs/metrics.md. Reports put
// it in their footer; a test keeps the two identical.
std::string_view definitionsMarkdown();

} // namespace kb::metrics
