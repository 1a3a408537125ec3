#pragma once
// Head-to-head scatter of a paired comparison: one point per shared task at (speedup of B,
// speedup of A) on log-log axes, with the diagonal where both are equal. Points above the
// diagonal are tasks where A is faster.

#include "data/comparison.h"
#include "qcp.h"

namespace kb::gui {

class HeadToHeadPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit HeadToHeadPlot(QWidget* parent = nullptr);
    void setComparison(ComparisonPtr comparison);
    int pointCount() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    ComparisonPtr m_comparison;
};

} // namespace kb::gui
