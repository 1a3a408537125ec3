#pragma once
// A line diff (longest common subsequence) for comparing a candidate with the reference or
// with the candidate of another turn. Sources are small (hundreds of lines), so the simple
// quadratic table is fine; very long inputs fall back to a plain replace of the middle.

#include <QString>
#include <QStringList>
#include <vector>

namespace kb::gui {

struct DiffLine {
    enum Kind { Same, Removed, Added };
    Kind kind = Same;
    QString text;
    int oldLine = 0; // 1-based; 0 for an added line
    int newLine = 0; // 1-based; 0 for a removed line
};

std::vector<DiffLine> diffLines(const QStringList& oldLines, const QStringList& newLines);
std::vector<DiffLine> diffTexts(const QString& oldText, const QString& newText);

// "  same", "- removed", "+ added", one per line.
QString diffText(const std::vector<DiffLine>& diff);

struct DiffStats {
    int added = 0;
    int removed = 0;
};
DiffStats diffStats(const std::vector<DiffLine>& diff);

} // namespace kb::gui
