#pragma once
// The timing samples of one attempt as a strip chart (sample index x milliseconds), one series
// per kind (candidate, eager, compile), with the eager median marked.

#include "data/attemptdetailloader.h"
#include "qcp.h"

namespace kb::gui {

class TimingPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit TimingPlot(QWidget* parent = nullptr);
    void setSnapshot(AttemptDetailPtr detail);
    // The y value of the eager-median marker; nullopt when there is no eager series.
    std::optional<double> eagerMedianMarker() const { return m_eagerMedian; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    AttemptDetailPtr m_detail;
    std::optional<double> m_eagerMedian;
};

} // namespace kb::gui
