#pragma once
// The models of the catalog (optionally of one provider): prices and what each has used.

#include "data/catalog.h"

#include <QAbstractTableModel>

namespace kb::gui {

class CatalogModelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ProviderColumn,
        PriceInColumn,
        PriceOutColumn,
        AttemptsColumn,
        TokensColumn,
        CostColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, IdRole };

    explicit CatalogModelsModel(QObject* parent = nullptr);
    void setCatalog(CatalogPtr catalog);
    void setProviderId(db::Id providerId); // 0 = every provider
    db::Id modelIdAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    CatalogPtr m_catalog;
    db::Id m_providerId = 0;
    std::vector<const db::ModelRow*> m_rows;
};

} // namespace kb::gui
