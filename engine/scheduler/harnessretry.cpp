#include "harnessretry.h"

#include <QRandomGenerator>
#include <algorithm>
#include <cmath>

namespace kb::engine {

double HarnessRetryPolicy::delaySeconds(int tries) const {
    const double d = std::min(maxSeconds, baseSeconds * std::pow(2.0, std::max(0, tries - 1)));
    return d * (0.5 + 0.5 * QRandomGenerator::global()->generateDouble());
}

} // namespace kb::engine
