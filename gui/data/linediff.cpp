#include "linediff.h"

#include <algorithm>

namespace kb::gui {

namespace {

constexpr std::size_t kMaxCells = 4'000'000; // beyond this the table would be too large

QStringList splitLines(const QString& text) {
    if (text.isEmpty())
        return {};
    QStringList lines = text.split(QLatin1Char('\n'));
    if (text.endsWith(QLatin1Char('\n')))
        lines.removeLast();
    return lines;
}

} // namespace

std::vector<DiffLine> diffLines(const QStringList& a, const QStringList& b) {
    std::vector<DiffLine> out;
    // Common prefix and suffix first: most edits are local.
    qsizetype prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    qsizetype suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    for (qsizetype i = 0; i < prefix; ++i)
        out.push_back({DiffLine::Same, a[i], int(i + 1), int(i + 1)});

    const auto n = static_cast<std::size_t>(a.size() - prefix - suffix);
    const auto m = static_cast<std::size_t>(b.size() - prefix - suffix);
    const auto oldAt = [&](std::size_t i) { return a[prefix + static_cast<qsizetype>(i)]; };
    const auto newAt = [&](std::size_t j) { return b[prefix + static_cast<qsizetype>(j)]; };
    if ((n + 1) * (m + 1) > kMaxCells) {
        for (std::size_t i = 0; i < n; ++i)
            out.push_back({DiffLine::Removed, oldAt(i), int(prefix + i + 1), 0});
        for (std::size_t j = 0; j < m; ++j)
            out.push_back({DiffLine::Added, newAt(j), 0, int(prefix + j + 1)});
    } else {
        // lcs[i][j]: longest common subsequence of old[i..] and new[j..]
        std::vector<int> lcs((n + 1) * (m + 1), 0);
        const auto at = [&](std::size_t i, std::size_t j) -> int& { return lcs[i * (m + 1) + j]; };
        for (std::size_t i = n; i-- > 0;) {
            for (std::size_t j = m; j-- > 0;)
                at(i, j) = oldAt(i) == newAt(j) ? at(i + 1, j + 1) + 1
                                                : std::max(at(i + 1, j), at(i, j + 1));
        }
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && oldAt(i) == newAt(j)) {
                out.push_back({DiffLine::Same, oldAt(i), int(prefix + i + 1), int(prefix + j + 1)});
                ++i;
                ++j;
            } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                // removals before additions, as unified diffs show them
                out.push_back({DiffLine::Removed, oldAt(i), int(prefix + i + 1), 0});
                ++i;
            } else {
                out.push_back({DiffLine::Added, newAt(j), 0, int(prefix + j + 1)});
                ++j;
            }
        }
    }
    for (qsizetype k = suffix; k > 0; --k) {
        const qsizetype oi = a.size() - k;
        const qsizetype ni = b.size() - k;
        out.push_back({DiffLine::Same, a[oi], int(oi + 1), int(ni + 1)});
    }
    return out;
}

std::vector<DiffLine> diffTexts(const QString& oldText, const QString& newText) {
    return diffLines(splitLines(oldText), splitLines(newText));
}

QString diffText(const std::vector<DiffLine>& diff) {
    QStringList lines;
    for (const auto& d : diff) {
        const QChar mark = d.kind == DiffLine::Added     ? QLatin1Char('+')
                           : d.kind == DiffLine::Removed ? QLatin1Char('-')
                                                         : QLatin1Char(' ');
        lines << mark + QLatin1Char(' ') + d.text;
    }
    return lines.join(QLatin1Char('\n'));
}

DiffStats diffStats(const std::vector<DiffLine>& diff) {
    DiffStats s;
    for (const auto& d : diff) {
        s.added += d.kind == DiffLine::Added ? 1 : 0;
        s.removed += d.kind == DiffLine::Removed ? 1 : 0;
    }
    return s;
}

} // namespace kb::gui
