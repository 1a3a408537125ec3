#include "resultspage.h"

#include "data/cellstyle.h"
#include "data/format.h"
#include "models/resultsfilterproxy.h"
#include "models/resultsmodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace kb::gui {

namespace {

using VerdictFilter = ResultsFilterProxy::VerdictFilter;

QString legendHtml(const QPalette& palette) {
    QStringList items;
    for (CellKind kind :
         {CellKind::Faster, CellKind::Slower, CellKind::CorrectUntimed, CellKind::Suspicious,
          CellKind::Incorrect, CellKind::Failed, CellKind::Rejected, CellKind::Pending}) {
        const std::optional<double> s = kind == CellKind::Faster   ? std::optional<double>(4.0)
                                        : kind == CellKind::Slower ? std::optional<double>(0.25)
                                                                   : std::nullopt;
        items << QStringLiteral("<span style=\"background-color:%1; "
                                "color:%2\">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%3")
                     .arg(cellBackground(kind, s, palette).name(),
                          palette.color(QPalette::Text).name(),
                          cellKindLabel(kind).toHtmlEscaped());
    }
    return items.join(QStringLiteral("&nbsp;&nbsp; "));
}

} // namespace

ResultsPage::ResultsPage(QWidget* parent)
    : QWidget(parent)
    , m_model(new ResultsModel(this))
    , m_proxy(new ResultsFilterProxy(this))
    , m_level(new QComboBox(this))
    , m_modelChoice(new QComboBox(this))
    , m_verdict(new QComboBox(this))
    , m_search(new QLineEdit(this))
    , m_flagged(new QCheckBox(tr("Flagged tasks"), this))
    , m_speedupMin(new QDoubleSpinBox(this))
    , m_speedupMax(new QDoubleSpinBox(this))
    , m_scope(new QLabel(this))
    , m_legend(new QLabel(this))
    , m_view(new QTableView(this))
    , m_cellInfo(new QTextBrowser(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this)) {
    m_proxy->setSourceModel(m_model);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ResultsModel::LevelColumn, Qt::AscendingOrder);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setDefaultSectionSize(
        fontMetrics().horizontalAdvance(QStringLiteral("⚠ 12.34×  (3/3)")) + 16);
    m_view->setWordWrap(false);

    m_level->setObjectName(QStringLiteral("levelFilter"));
    m_modelChoice->setObjectName(QStringLiteral("modelFilter"));
    m_verdict->setObjectName(QStringLiteral("verdictFilter"));
    m_search->setObjectName(QStringLiteral("searchFilter"));
    m_search->setPlaceholderText(tr("Search tasks…"));
    m_search->setClearButtonEnabled(true);
    const std::pair<VerdictFilter, QString> verdicts[] = {
        {VerdictFilter::All, tr("Any verdict")},
        {VerdictFilter::Correct, tr("Correct")},
        {VerdictFilter::Faster, tr("Faster than eager")},
        {VerdictFilter::Slower, tr("Correct but slower")},
        {VerdictFilter::Failed, tr("Failed or rejected")},
        {VerdictFilter::Suspicious, tr("Suspicious (needs review)")},
        {VerdictFilter::Pending, tr("Pending")},
    };
    for (const auto& [filter, label] : verdicts)
        m_verdict->addItem(label, ResultsFilterProxy::verdictFilterKey(filter));

    m_flagged->setObjectName(QStringLiteral("flaggedFilter"));
    m_flagged->setToolTip(tr("Only tasks whose reference failed a validation check (⚠)"));
    for (auto* box : {m_speedupMin, m_speedupMax}) {
        box->setRange(0, 10000);
        box->setDecimals(2);
        box->setSingleStep(0.25);
        box->setSuffix(QStringLiteral("×"));
        box->setSpecialValueText(tr("any"));
        box->setToolTip(tr("Speedup vs eager of the best sample; 'any' = no bound"));
    }
    m_speedupMin->setObjectName(QStringLiteral("speedupMin"));
    m_speedupMax->setObjectName(QStringLiteral("speedupMax"));

    auto* filters = new QHBoxLayout;
    filters->addWidget(m_level);
    filters->addWidget(m_modelChoice);
    filters->addWidget(m_verdict);
    filters->addWidget(m_flagged);
    filters->addWidget(new QLabel(tr("Speedup"), this));
    filters->addWidget(m_speedupMin);
    filters->addWidget(new QLabel(QStringLiteral("–"), this));
    filters->addWidget(m_speedupMax);
    filters->addWidget(m_search, 1);
    auto* clear = new QPushButton(tr("Clear filters"), this);
    filters->addWidget(clear);

    m_scope->setWordWrap(true);
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setText(legendHtml(palette()));
    m_cellInfo->setOpenLinks(false);
    m_cellInfo->setPlaceholderText(
        tr("Select a cell to see its samples. Double-click a cell to open the attempt."));

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_view, 1);
    leftLayout->addWidget(m_legend);
    m_splitter->addWidget(left);
    m_splitter->addWidget(m_cellInfo);
    m_splitter->setStretchFactor(0, 4);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_scope);
    layout->addLayout(filters);
    layout->addWidget(m_splitter, 1);

    connect(m_level, &QComboBox::activated, this, [this]() {
        m_wantedLevel = m_level->currentData().toInt();
        applyFilters();
    });
    connect(m_modelChoice, &QComboBox::activated, this, [this]() {
        m_wantedModel = m_modelChoice->currentData().toString();
        applyFilters();
    });
    connect(m_verdict, &QComboBox::activated, this, [this]() { applyFilters(); });
    connect(m_search, &QLineEdit::textChanged, this, [this]() { applyFilters(); });
    connect(m_flagged, &QCheckBox::toggled, this, [this]() { applyFilters(); });
    connect(m_speedupMin, &QDoubleSpinBox::valueChanged, this, [this]() { applyFilters(); });
    connect(m_speedupMax, &QDoubleSpinBox::valueChanged, this, [this]() { applyFilters(); });
    connect(clear, &QPushButton::clicked, this, [this]() {
        setLevelFilter(0);
        setModelFilter({});
        setVerdictFilterKey({});
        setSearchText({});
        setFlaggedOnly(false);
        setSpeedupRange(0, 0);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { showCellDetails(current); });
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        const qint64 id = index.data(ResultsModel::AttemptIdRole).toLongLong();
        if (id > 0)
            Q_EMIT attemptActivated(id);
    });
    rebuildFilterChoices();
}

void ResultsPage::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    m_model->setSnapshot(snapshot, runId);
    rebuildFilterChoices();
    applyFilters();
    m_cellInfo->clear();
    m_view->resizeColumnToContents(ResultsModel::LevelColumn);
    m_view->resizeColumnToContents(ResultsModel::TaskColumn);
    if (!snapshot) {
        m_scope->clear();
        return;
    }
    if (const RunSummary* run = snapshot->findRun(runId)) {
        m_scope->setText(tr("Run %1 · %2 · suite %3 · %4 · %5 tasks × %6 models")
                             .arg(runId)
                             .arg(qs(run->run.name), qs(run->run.suiteName), qs(run->run.status))
                             .arg(m_model->rowCount())
                             .arg(m_model->models().size()));
    } else {
        m_scope->setText(tr("All runs · %1 tasks × %2 models (each cell shows the best sample)")
                             .arg(m_model->rowCount())
                             .arg(m_model->models().size()));
    }
}

void ResultsPage::rebuildFilterChoices() {
    m_updatingChoices = true;
    m_level->clear();
    m_level->addItem(tr("All levels"), 0);
    for (int level : m_model->levels())
        m_level->addItem(tr("Level %1").arg(level), level);
    const int levelRow = m_level->findData(m_wantedLevel);
    m_level->setCurrentIndex(levelRow < 0 ? 0 : levelRow);

    m_modelChoice->clear();
    m_modelChoice->addItem(tr("All models"), QString());
    for (const QString& model : m_model->models())
        m_modelChoice->addItem(model, model);
    const int modelRow = m_modelChoice->findData(m_wantedModel);
    m_modelChoice->setCurrentIndex(modelRow < 0 ? 0 : modelRow);
    m_updatingChoices = false;
}

void ResultsPage::applyFilters() {
    if (m_updatingChoices)
        return;
    m_proxy->setLevel(m_level->currentData().toInt());
    m_proxy->setModelName(m_modelChoice->currentData().toString());
    m_proxy->setVerdictFilter(
        ResultsFilterProxy::verdictFilterFromKey(m_verdict->currentData().toString()));
    m_proxy->setSearchText(m_search->text());
    m_proxy->setFlaggedOnly(m_flagged->isChecked());
    m_proxy->setSpeedupRange(m_speedupMin->value(), m_speedupMax->value());
    persistFilters();
}

void ResultsPage::setFlaggedOnly(bool flagged) {
    m_flagged->setChecked(flagged); // toggled applies
    applyFilters();
}

void ResultsPage::setSpeedupRange(double min, double max) {
    m_updatingChoices = true;
    m_speedupMin->setValue(min);
    m_speedupMax->setValue(max);
    m_updatingChoices = false;
    applyFilters();
}

void ResultsPage::setLevelFilter(int level) {
    m_wantedLevel = level;
    const int row = m_level->findData(level);
    m_level->setCurrentIndex(row < 0 ? 0 : row);
    applyFilters();
}

void ResultsPage::setModelFilter(const QString& model) {
    m_wantedModel = model;
    const int row = m_modelChoice->findData(model);
    m_modelChoice->setCurrentIndex(row < 0 ? 0 : row);
    applyFilters();
}

void ResultsPage::setVerdictFilterKey(const QString& key) {
    const int row = m_verdict->findData(
        ResultsFilterProxy::verdictFilterKey(ResultsFilterProxy::verdictFilterFromKey(key)));
    m_verdict->setCurrentIndex(row < 0 ? 0 : row);
    applyFilters();
}

void ResultsPage::setSearchText(const QString& text) {
    m_search->setText(text); // textChanged applies
    applyFilters();
}

void ResultsPage::showCellDetails(const QModelIndex& index) {
    if (!index.isValid()) {
        m_cellInfo->clear();
        return;
    }
    m_cellInfo->setPlainText(index.data(Qt::ToolTipRole).toString());
}

void ResultsPage::persistFilters() const {
    QSettings settings;
    settings.setValue(QStringLiteral("results/level"), m_wantedLevel);
    settings.setValue(QStringLiteral("results/model"), m_wantedModel);
    settings.setValue(QStringLiteral("results/verdict"), m_verdict->currentData().toString());
    settings.setValue(QStringLiteral("results/search"), m_search->text());
    settings.setValue(QStringLiteral("results/flagged"), m_flagged->isChecked());
    settings.setValue(QStringLiteral("results/speedupMin"), m_speedupMin->value());
    settings.setValue(QStringLiteral("results/speedupMax"), m_speedupMax->value());
}

void ResultsPage::saveState(QSettings& settings) const {
    persistFilters();
    settings.setValue(QStringLiteral("results/splitter"), m_splitter->saveState());
}

void ResultsPage::restoreState(const QSettings& settings) {
    m_splitter->restoreState(settings.value(QStringLiteral("results/splitter")).toByteArray());
    m_updatingChoices = true;
    m_wantedLevel = settings.value(QStringLiteral("results/level"), 0).toInt();
    m_wantedModel = settings.value(QStringLiteral("results/model")).toString();
    const int verdictRow =
        m_verdict->findData(settings.value(QStringLiteral("results/verdict")).toString());
    m_verdict->setCurrentIndex(verdictRow < 0 ? 0 : verdictRow);
    m_search->setText(settings.value(QStringLiteral("results/search")).toString());
    m_flagged->setChecked(settings.value(QStringLiteral("results/flagged"), false).toBool());
    m_speedupMin->setValue(settings.value(QStringLiteral("results/speedupMin"), 0.0).toDouble());
    m_speedupMax->setValue(settings.value(QStringLiteral("results/speedupMax"), 0.0).toDouble());
    m_updatingChoices = false;
    rebuildFilterChoices();
    applyFilters();
}

} // namespace kb::gui
