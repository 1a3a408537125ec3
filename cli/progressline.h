#pragma once
// The live progress line of `kbstudio-cli run`: a bar, counts by state, throughput and ETA.
// On a terminal it redraws in place; otherwise it prints one line per finished attempt.

#include "run/runtypes.h"

namespace kb::cli {

class ProgressLine {
public:
    explicit ProgressLine(bool enabled);
    void update(const engine::RunProgress& progress);
    void attempt(const engine::AttemptResult& result);
    void message(const QString& text);
    void finish();

private:
    void redraw();
    bool m_enabled;
    bool m_tty;
    engine::RunProgress m_last;
    bool m_drawn = false;
};

QString progressText(const engine::RunProgress& p, int barWidth);

} // namespace kb::cli
