#include "runspage.h"

#include "data/format.h"
#include "models/runsmodel.h"

#include <QDir>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace kb::gui {

RunsPage::RunsPage(QWidget* parent)
    : QWidget(parent)
    , m_model(new RunsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_summary(new QLabel(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RunsModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunsModel::IdColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->setWordWrap(false);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (m_selecting || !current.isValid())
                    return;
                Q_EMIT runSelected(current.data(RunsModel::RunIdRole).toLongLong());
            });
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        Q_EMIT runActivated(index.data(RunsModel::RunIdRole).toLongLong());
    });
}

void RunsPage::setSnapshot(SnapshotPtr snapshot) {
    m_selecting = true;
    m_model->setSnapshot(snapshot);
    m_selecting = false;
    if (!snapshot) {
        m_summary->clear();
        return;
    }
    const QString runs =
        snapshot->runs.size() == 1 ? tr("1 run") : tr("%1 runs").arg(snapshot->runs.size());
    m_summary->setText(tr("%1, %2 attempts in %3")
                           .arg(runs)
                           .arg(snapshot->attemptCount())
                           .arg(QDir::toNativeSeparators(snapshot->databasePath)));
    if (!m_sized && !snapshot->runs.empty()) {
        m_sized = true;
        m_view->resizeColumnsToContents();
        // settings summaries can be long; the last column stretches instead
        for (int c = 0; c < RunsModel::SettingsColumn; ++c) {
            m_view->setColumnWidth(
                c, std::min(m_view->columnWidth(c), fontMetrics().averageCharWidth() * 32));
        }
        // the full summary is in the tooltip; never let it push the table wider than the view
        m_view->setColumnWidth(RunsModel::SettingsColumn, fontMetrics().averageCharWidth() * 12);
    }
}

void RunsPage::selectRun(db::Id runId) {
    m_selecting = true;
    const int row = m_model->rowOfRun(runId);
    if (row < 0) {
        m_view->clearSelection();
    } else {
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
        m_view->scrollTo(index);
    }
    m_selecting = false;
}

void RunsPage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("runs/header"), m_view->horizontalHeader()->saveState());
}

void RunsPage::restoreState(const QSettings& settings) {
    if (m_view->horizontalHeader()->restoreState(
            settings.value(QStringLiteral("runs/header")).toByteArray()))
        m_sized = true;
}

} // namespace kb::gui
