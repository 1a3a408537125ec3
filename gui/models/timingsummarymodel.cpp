#include "timingsummarymodel.h"

#include "data/format.h"

namespace kb::gui {

TimingSummaryModel::TimingSummaryModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void TimingSummaryModel::setSnapshot(AttemptDetailPtr detail) {
    beginResetModel();
    m_detail = std::move(detail);
    endResetModel();
}

int TimingSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_detail ? 0 : static_cast<int>(m_detail->timing.size());
}

int TimingSummaryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TimingSummaryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const db::TimingSeriesRow& s = m_detail->timing[static_cast<std::size_t>(index.row())];
    if (role == KindRole)
        return qs(s.kind);
    std::optional<double> ms;
    switch (index.column()) {
    case MedianColumn:
        ms = s.medianMs;
        break;
    case MeanColumn:
        ms = s.meanMs;
        break;
    case StdColumn:
        ms = s.stdMs;
        break;
    case MinColumn:
        ms = s.minMs;
        break;
    case MaxColumn:
        ms = s.maxMs;
        break;
    case WallColumn:
        ms = s.wallMs;
        break;
    default:
        break;
    }
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == SeriesColumn)
            return qs(s.kind);
        if (index.column() == SamplesColumn)
            return static_cast<int>(s.samplesMs.size());
        return ms ? formatMilliseconds(*ms) : QString();
    case SortRole:
        if (index.column() == SeriesColumn)
            return qs(s.kind);
        if (index.column() == SamplesColumn)
            return static_cast<int>(s.samplesMs.size());
        return ms.value_or(-1.0);
    case MillisecondsRole:
        return ms ? QVariant(*ms) : QVariant();
    case Qt::TextAlignmentRole:
        if (index.column() != SeriesColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        break;
    default:
        break;
    }
    return {};
}

QVariant TimingSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeriesColumn:
        return tr("Series");
    case SamplesColumn:
        return tr("Samples");
    case MedianColumn:
        return tr("Median");
    case MeanColumn:
        return tr("Mean");
    case StdColumn:
        return tr("Std dev");
    case MinColumn:
        return tr("Min");
    case MaxColumn:
        return tr("Max");
    case WallColumn:
        return tr("Wall clock");
    default:
        break;
    }
    return {};
}

} // namespace kb::gui
