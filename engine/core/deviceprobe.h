#pragma once

#include <QString>

namespace kb::engine {

// "cuda" when the harness's Python sees a CUDA device, else "cpu". Runs the interpreter once.
QString detectDevice();

} // namespace kb::engine
