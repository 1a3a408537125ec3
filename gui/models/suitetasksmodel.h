#pragma once
// The tasks of a suite (or of every suite): key, name, level, operators, validation flags
// (with a warning icon) and how many baselines are stored for them.

#include "data/catalog.h"

#include <QAbstractTableModel>

namespace kb::gui {

class SuiteTasksModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        KeyColumn,
        NameColumn,
        LevelColumn,
        OpsColumn,
        FlagsColumn,
        BaselinesColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, TaskIdRole, FlaggedRole };

    explicit SuiteTasksModel(QObject* parent = nullptr);
    void setCatalog(CatalogPtr catalog, db::Id suiteId);
    const TaskInfo* taskAt(int row) const;
    int rowOfTask(db::Id taskId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    CatalogPtr m_catalog;
    std::vector<const TaskInfo*> m_rows;
};

// The stored baselines of one task, one row per device / torch / settings.
class BaselinesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        DeviceColumn,
        TorchColumn,
        SettingsColumn,
        EagerColumn,
        CompileColumn,
        MeasuredColumn,
        ColumnCount
    };

    explicit BaselinesModel(QObject* parent = nullptr);
    void setBaselines(std::vector<db::BaselineRow> rows);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<db::BaselineRow> m_rows;
};

} // namespace kb::gui
