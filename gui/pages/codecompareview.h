#pragma once
// The candidate code of an attempt, highlighted, or as a line diff against the task's reference
// or against the candidate of another turn; jumps to a line (for build errors).

#include "data/linediff.h"
#include "db/records.h"

#include <QWidget>
#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;

namespace kb::gui {

class CodeCompareView : public QWidget {
    Q_OBJECT
public:
    explicit CodeCompareView(QWidget* parent = nullptr);

    // candidate: the attempt's final candidate (empty when none); turns: every turn's candidate.
    void setSources(const QString& candidate, const QString& reference,
                    const std::vector<db::CandidateRow>& turns);
    void clear();

    // 0: the candidate; 1: diff against the reference; 2 + i: diff against turn candidate i.
    void setCompareIndex(int index);
    int compareCount() const;
    QString compareLabel(int index) const;
    // Shows the candidate with line `line` (1-based) selected and visible.
    void goToLine(int line);
    int currentLine() const;

    QString text() const;
    QString summaryText() const;

private:
    void render();

    QComboBox* m_compare;
    QLabel* m_summary;
    QPlainTextEdit* m_text;
    QString m_candidate;
    QString m_reference;
    std::vector<db::CandidateRow> m_turns;
};

} // namespace kb::gui
