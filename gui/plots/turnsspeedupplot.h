#pragma once
// Whether more turns buy more speed: one point per correct, timed attempt of the multi-turn
// and agent runs in scope, x = its number of turns, y = speedup vs eager on a log2 axis.

#include "data/plotdata.h"
#include "qcp.h"

namespace kb::gui {

class TurnsSpeedupPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit TurnsSpeedupPlot(QWidget* parent = nullptr);
    void setSnapshot(SnapshotPtr snapshot, db::Id runId);
    const TurnsSpeedupData& data() const { return m_data; }
    // The text shown instead of points; empty while there are points.
    const QString& emptyText() const { return m_emptyText; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    SnapshotPtr m_snapshot;
    db::Id m_runId = 0;
    TurnsSpeedupData m_data;
    QString m_emptyText;
};

} // namespace kb::gui
