#include "providersmodel.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QStringList>

namespace kb::gui {

ProvidersModel::ProvidersModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void ProvidersModel::setCatalog(CatalogPtr catalog) {
    beginResetModel();
    m_catalog = std::move(catalog);
    endResetModel();
}

db::Id ProvidersModel::providerIdAt(int row) const {
    return m_catalog && row >= 0 && row < rowCount()
               ? m_catalog->providers.at(static_cast<std::size_t>(row)).id
               : 0;
}

int ProvidersModel::rowOfProvider(db::Id id) const {
    for (int row = 0; row < rowCount(); ++row) {
        if (providerIdAt(row) == id)
            return row;
    }
    return -1;
}

int ProvidersModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_catalog ? 0 : static_cast<int>(m_catalog->providers.size());
}

int ProvidersModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString ProvidersModel::limitsText(const std::string& settingsJson) {
    const QJsonObject s = QJsonDocument::fromJson(QByteArray::fromStdString(settingsJson)).object();
    QStringList parts;
    const QLocale locale;
    if (s.contains(QStringLiteral("max_concurrent")))
        parts << tr("%1 at once").arg(s.value(QStringLiteral("max_concurrent")).toInt());
    if (s.value(QStringLiteral("token_budget")).toDouble() > 0)
        parts << tr("%1 tokens")
                     .arg(locale.toString(s.value(QStringLiteral("token_budget")).toDouble(), 'f',
                                          0));
    if (s.contains(QStringLiteral("timeout_ms")))
        parts << tr("%1 s timeout").arg(s.value(QStringLiteral("timeout_ms")).toDouble() / 1000.0);
    return parts.isEmpty() ? tr("defaults") : parts.join(QStringLiteral(", "));
}

QVariant ProvidersModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !m_catalog)
        return {};
    const auto& p = m_catalog->providers.at(static_cast<std::size_t>(index.row()));
    if (role == IdRole)
        return qint64(p.id);
    int models = 0;
    for (const auto& m : m_catalog->models)
        models += m.providerId == p.id ? 1 : 0;
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(p.name);
        case KindColumn:
            return QString::fromStdString(p.kind);
        case BaseUrlColumn:
            return p.baseUrl.empty() && role == Qt::DisplayRole ? tr("(none)")
                                                                : QString::fromStdString(p.baseUrl);
        case ModelsColumn:
            return models;
        case LimitsColumn:
            return limitsText(p.settingsJson);
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() == ModelsColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ProvidersModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Provider");
    case KindColumn:
        return tr("Kind");
    case BaseUrlColumn:
        return tr("Base URL");
    case ModelsColumn:
        return tr("Models");
    case LimitsColumn:
        return tr("Limits");
    default:
        return {};
    }
}

} // namespace kb::gui
