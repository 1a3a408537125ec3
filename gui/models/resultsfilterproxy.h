#pragma once
// Filters the results grid: rows by level, verdict and search text, columns by model.

#include <QSortFilterProxyModel>

namespace kb::gui {

class ResultsFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    // Which cells a row must have (in a visible model column) to stay.
    enum class VerdictFilter { All, Correct, Faster, Slower, Failed, Suspicious, Pending };

    explicit ResultsFilterProxy(QObject* parent = nullptr);

    void setLevel(int level); // 0 = every level
    int level() const { return m_level; }
    void setModelName(const QString& model); // empty = every model
    QString modelName() const { return m_model; }
    void setVerdictFilter(VerdictFilter filter);
    VerdictFilter verdictFilter() const { return m_verdict; }
    void setSearchText(const QString& text); // matches task key or name, case-insensitive
    QString searchText() const { return m_search; }
    // Only tasks whose reference failed a validation check.
    void setFlaggedOnly(bool flagged);
    bool flaggedOnly() const { return m_flaggedOnly; }
    // Only rows with a visible cell whose speedup vs eager lies in [min, max]; 0 = no bound.
    void setSpeedupRange(double min, double max);
    double speedupMin() const { return m_speedupMin; }
    double speedupMax() const { return m_speedupMax; }

    static QString verdictFilterKey(VerdictFilter filter); // stable name for settings
    static VerdictFilter verdictFilterFromKey(const QString& key);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool filterAcceptsColumn(int sourceColumn, const QModelIndex& sourceParent) const override;

private:
    bool cellMatches(const QModelIndex& sourceIndex) const;
    bool speedupMatches(const QModelIndex& sourceIndex) const;

    int m_level = 0;
    QString m_model;
    VerdictFilter m_verdict = VerdictFilter::All;
    QString m_search;
    bool m_flaggedOnly = false;
    double m_speedupMin = 0;
    double m_speedupMax = 0;
};

} // namespace kb::gui
