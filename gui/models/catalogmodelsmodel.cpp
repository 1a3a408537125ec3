#include "catalogmodelsmodel.h"

#include <QCoreApplication>
#include <QLocale>

namespace kb::gui {

namespace {

QString price(const std::optional<double>& v) {
    return v ? QStringLiteral("$%1").arg(*v, 0, 'f', 2)
             : QCoreApplication::translate("kb::gui::CatalogModelsModel", "not set");
}

} // namespace

CatalogModelsModel::CatalogModelsModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void CatalogModelsModel::setCatalog(CatalogPtr catalog) {
    beginResetModel();
    m_catalog = std::move(catalog);
    rebuild();
    endResetModel();
}

void CatalogModelsModel::setProviderId(db::Id providerId) {
    beginResetModel();
    m_providerId = providerId;
    rebuild();
    endResetModel();
}

void CatalogModelsModel::rebuild() {
    m_rows.clear();
    if (!m_catalog)
        return;
    for (const auto& m : m_catalog->models) {
        if (m_providerId == 0 || m.providerId == m_providerId)
            m_rows.push_back(&m);
    }
}

db::Id CatalogModelsModel::modelIdAt(int row) const {
    return row >= 0 && row < rowCount() ? m_rows.at(static_cast<std::size_t>(row))->id : 0;
}

int CatalogModelsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CatalogModelsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CatalogModelsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& m = *m_rows.at(static_cast<std::size_t>(index.row()));
    const ModelUsage u = m_catalog->usageOf(m.id);
    const QLocale locale;
    switch (role) {
    case IdRole:
        return qint64(m.id);
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return m.label.empty() ? QString::fromStdString(m.name)
                                   : QStringLiteral("%1 (%2)").arg(QString::fromStdString(m.name),
                                                                   QString::fromStdString(m.label));
        case ProviderColumn:
            return QString::fromStdString(m.providerName);
        case PriceInColumn:
            return price(m.priceInPerMTok);
        case PriceOutColumn:
            return price(m.priceOutPerMTok);
        case AttemptsColumn:
            return u.attempts;
        case TokensColumn:
            return tr("%1 in / %2 out")
                .arg(locale.toString(u.inputTokens), locale.toString(u.outputTokens));
        case CostColumn:
            return QStringLiteral("$%1").arg(u.costUsd, 0, 'f', 2);
        default:
            return {};
        }
    case SortRole:
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(m.name);
        case ProviderColumn:
            return QString::fromStdString(m.providerName);
        case PriceInColumn:
            return m.priceInPerMTok.value_or(-1);
        case PriceOutColumn:
            return m.priceOutPerMTok.value_or(-1);
        case AttemptsColumn:
            return u.attempts;
        case TokensColumn:
            return qint64(u.inputTokens + u.outputTokens);
        case CostColumn:
            return u.costUsd;
        default:
            return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() >= PriceInColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                               : QVariant();
    default:
        return {};
    }
}

QVariant CatalogModelsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Model");
    case ProviderColumn:
        return tr("Provider");
    case PriceInColumn:
        return tr("In $/Mtok");
    case PriceOutColumn:
        return tr("Out $/Mtok");
    case AttemptsColumn:
        return tr("Attempts");
    case TokensColumn:
        return tr("Tokens used");
    case CostColumn:
        return tr("Cost");
    default:
        return {};
    }
}

} // namespace kb::gui
