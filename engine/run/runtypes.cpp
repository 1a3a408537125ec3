#include "runtypes.h"

namespace kb::engine {

void RunProgress::setStatusCounts(const std::map<std::string, int>& counts) {
    auto get = [&](db::AttemptStatus status) {
        auto it = counts.find(db::toString(status));
        return it == counts.end() ? 0 : it->second;
    };
    queued = get(db::AttemptStatus::Queued);
    generating = get(db::AttemptStatus::Generating);
    building = get(db::AttemptStatus::Building);
    evaluating = get(db::AttemptStatus::Evaluating);
    done = get(db::AttemptStatus::Done);
    failed = get(db::AttemptStatus::Failed);
    cancelled = get(db::AttemptStatus::Cancelled);
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
