#pragma once
// Per-level speedup distribution per model: every correct task's best speedup as a point on a
// log2 axis, grouped by level, with each group's median and the 1x line.

#include "data/plotdata.h"
#include "qcp.h"

namespace kb::gui {

class SpeedupDistributionPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit SpeedupDistributionPlot(QWidget* parent = nullptr);
    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    void setBaseline(metrics::Baseline baseline);
    const std::vector<SpeedupGroup>& groups() const { return m_groups; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    SnapshotPtr m_snapshot;
    db::Id m_runId = 0;
    metrics::Baseline m_baseline = metrics::Baseline::Eager;
    std::vector<SpeedupGroup> m_groups;
};

} // namespace kb::gui
