#include "runtypes.h"

namespace kb::engine {

void RunProgress::setStatusCounts(const std::map<std::string, int>& counts) {
    auto get = [&](const char* k) {
        auto it = counts.find(k);
        return it == counts.end() ? 0 : it->second;
    };
    queued = get("queued");
    generating = get("generating");
    building = get("building");
    evaluating = get("evaluating");
    done = get("done");
    failed = get("failed");
    cancelled = get("cancelled");
    total = 0;
    for (const auto& [k, v] : counts)
        total += v;
}

void RunProgress::setPace(double elapsed, int finishedThisSession) {
    elapsedSeconds = elapsed;
    const int remaining = total - finished();
    if (finishedThisSession > 0)
        etaSeconds = elapsedSeconds / finishedThisSession * remaining;
    if (elapsedSeconds > 0)
        attemptsPerMinute = finishedThisSession * 60.0 / elapsedSeconds;
}

} // namespace kb::engine
