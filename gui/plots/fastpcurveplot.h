#pragma once
// fast_p against p from 0 to 3, one curve per model: the share of all tasks that are correct
// and more than p times faster than the baseline.

#include "data/plotdata.h"
#include "qcp.h"

namespace kb::gui {

class FastPCurvePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit FastPCurvePlot(QWidget* parent = nullptr);
    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    void setBaseline(metrics::Baseline baseline);
    void setLevel(int level); // 0 = every level
    const std::vector<FastPCurve>& curves() const { return m_curves; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    SnapshotPtr m_snapshot;
    db::Id m_runId = 0;
    metrics::Baseline m_baseline = metrics::Baseline::Eager;
    int m_level = 0;
    std::vector<FastPCurve> m_curves;
};

} // namespace kb::gui
