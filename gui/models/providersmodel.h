#pragma once
// The configured providers, one row each.

#include "data/catalog.h"

#include <QAbstractTableModel>

namespace kb::gui {

class ProvidersModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, BaseUrlColumn, ModelsColumn, LimitsColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole, IdRole };

    explicit ProvidersModel(QObject* parent = nullptr);
    void setCatalog(CatalogPtr catalog);
    db::Id providerIdAt(int row) const;
    int rowOfProvider(db::Id id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // "4 at once, 2,000,000 tokens, 600 s timeout" from a provider's settings_json.
    static QString limitsText(const std::string& settingsJson);

private:
    CatalogPtr m_catalog;
};

} // namespace kb::gui
