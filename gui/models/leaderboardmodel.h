#pragma once
// The leaderboard in the layout of CUDA-Agent's Table 1: one row per model; for the weighted
// overall and then every level, a group of seven columns (pass rate, pass@1, pass@k, fast_1 vs
// eager, fast_1 vs compile, geomean vs eager and vs compile with their bootstrap intervals).

#include "data/snapshot.h"

#include <QAbstractTableModel>
#include <optional>

namespace kb::gui {

class LeaderboardModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Fixed columns; the metric groups follow (see column()).
    enum Column { ModelColumn, SuspiciousColumn, RejectedColumn, ColumnCount };
    enum Metric {
        PassMetric,
        PassAt1Metric, // unbiased pass@1 over each task's samples
        PassAtKMetric, // pass@k, k = the most samples a task has (pass@1 again with one sample)
        FastEagerMetric,
        FastCompileMetric,
        GeomeanEagerMetric,
        GeomeanCompileMetric,
        MetricCount
    };
    enum Role {
        SortRole = Qt::UserRole,
        ValueRole,  // the number (fraction or speedup); invalid for "n/a"
        LevelRole,  // level of the column's group; 0 = overall
        MetricRole, // int(Metric) of the column; -1 for fixed columns
    };

    explicit LeaderboardModel(QObject* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot, db::Id runId);

    // Groups: the weighted overall (level 0), then the board's levels ascending.
    int groupCount() const { return static_cast<int>(m_groupLevels.size()); }
    int groupLevel(int group) const { return m_groupLevels.at(static_cast<std::size_t>(group)); }
    int column(int group, Metric metric) const {
        return ColumnCount + group * MetricCount + metric;
    }
    // The column of a metric for a level (0 = overall); -1 when the level is not shown.
    int columnFor(int level, Metric metric) const;
    int rowOfModel(const QString& model) const;
    const metrics::Leaderboard* leaderboard() const { return m_board; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    static QString metricName(Metric metric); // may hold a line break
    static QString metricDefinition(Metric metric);
    // The k of the pass@k columns: the largest of the board's pass@k values (1 without a board).
    int passK() const;

private:
    const metrics::LeaderboardCell* cellOf(const std::string& model, int level) const;
    std::optional<double> value(const metrics::LeaderboardCell& cell, Metric metric) const;
    QString toolTip(const metrics::LeaderboardCell* cell, int level, Metric metric) const;

    SnapshotPtr m_snapshot;
    const metrics::Leaderboard* m_board = nullptr;
    std::vector<int> m_groupLevels;
};

} // namespace kb::gui
