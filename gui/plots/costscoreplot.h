#pragma once
// What each model spent against how well it scored: one labelled point per model of the run
// in scope, x = total cost in USD (tokens where no cost is stored), y = pass rate or fast_1.

#include "data/plotdata.h"
#include "qcp.h"

namespace kb::gui {

class CostScorePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit CostScorePlot(QWidget* parent = nullptr);
    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    void setMeasure(ScoreMeasure measure);
    ScoreMeasure measure() const { return m_measure; }
    const CostScoreData& data() const { return m_data; }
    // The text shown instead of points; empty while there are points.
    const QString& emptyText() const { return m_emptyText; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    SnapshotPtr m_snapshot;
    db::Id m_runId = 0;
    ScoreMeasure m_measure = ScoreMeasure::PassRate;
    CostScoreData m_data;
    QString m_emptyText;
};

} // namespace kb::gui
