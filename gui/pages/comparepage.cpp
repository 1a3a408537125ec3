#include "comparepage.h"

#include "data/scopecache.h"
#include "models/pairedtasksmodel.h"
#include "plots/headtoheadplot.h"
#include "plots/plotexport.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <tuple>

namespace kb::gui {

namespace {

QString times(double v) {
    return QString::number(v, 'f', 3) + QStringLiteral("×");
}

} // namespace

ComparePage::ComparePage(QWidget* parent)
    : QWidget(parent)
    , m_runA(new QComboBox(this))
    , m_modelA(new QComboBox(this))
    , m_runB(new QComboBox(this))
    , m_modelB(new QComboBox(this))
    , m_baseline(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_model(new PairedTasksModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_plot(new HeadToHeadPlot(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this)) {
    for (auto* box : {m_runA, m_modelA, m_runB, m_modelB})
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_runA->setObjectName(QStringLiteral("compareRunA"));
    m_runB->setObjectName(QStringLiteral("compareRunB"));
    m_modelA->setObjectName(QStringLiteral("compareModelA"));
    m_modelB->setObjectName(QStringLiteral("compareModelB"));
    m_baseline->addItem(tr("vs eager"), int(metrics::Baseline::Eager));
    m_baseline->addItem(tr("vs torch.compile"), int(metrics::Baseline::Compile));

    auto* swap = new QPushButton(tr("Swap"), this);
    swap->setToolTip(tr("Exchange A and B"));
    auto* exportButton = new QPushButton(tr("Export plot…"), this);
    exportButton->setToolTip(tr("Save the scatter plot as PNG, SVG or PDF"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("<b>A</b>"), this));
    controls->addWidget(m_modelA);
    controls->addWidget(m_runA);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("<b>B</b>"), this));
    controls->addWidget(m_modelB);
    controls->addWidget(m_runB);
    controls->addWidget(swap);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Speedup:"), this));
    controls->addWidget(m_baseline);
    controls->addStretch(1);

    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(PairedTasksModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(PairedTasksModel::RatioColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->verticalHeader()->hide();
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(PairedTasksModel::TaskColumn,
                                                     QHeaderView::Stretch);
    m_view->setToolTip(tr("Shared tasks, largest difference first (sort by A / B)"));

    auto* plotBox = new QWidget(this);
    auto* plotLayout = new QVBoxLayout(plotBox);
    plotLayout->setContentsMargins(0, 0, 0, 0);
    auto* plotBar = new QHBoxLayout;
    plotBar->addWidget(
        new QLabel(tr("<b>Head to head</b> (one point per shared task; dashed: equal)"), plotBox),
        1);
    plotBar->addWidget(exportButton);
    plotLayout->addLayout(plotBar);
    plotLayout->addWidget(m_plot, 1);

    m_splitter->addWidget(m_view);
    m_splitter->addWidget(plotBox);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({620, 620});

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(m_splitter, 1);

    connect(m_runA, &QComboBox::activated, this, [this]() {
        fillModels(m_runA, m_modelA, m_modelA->currentText());
        recompute();
    });
    connect(m_runB, &QComboBox::activated, this, [this]() {
        fillModels(m_runB, m_modelB, m_modelB->currentText());
        recompute();
    });
    for (auto* box : {m_modelA, m_modelB, m_baseline})
        connect(box, &QComboBox::activated, this, &ComparePage::recompute);
    connect(swap, &QPushButton::clicked, this, [this]() { setSides(sideB(), sideA()); });
    connect(exportButton, &QPushButton::clicked, this, &ComparePage::exportPlot);
    recompute();
}

void ComparePage::fillRuns(QComboBox* box) {
    const auto wanted = box->currentData();
    box->clear();
    box->addItem(tr("all runs"), qint64(0));
    if (m_snapshot) {
        for (const auto& r : m_snapshot->runs)
            box->addItem(tr("run %1").arg(r.run.id), qint64(r.run.id));
    }
    const int row = box->findData(wanted);
    box->setCurrentIndex(row < 0 ? 0 : row);
}

void ComparePage::fillModels(QComboBox* runBox, QComboBox* modelBox, const QString& wanted) {
    modelBox->clear();
    if (m_snapshot)
        modelBox->addItems(modelsOf(*m_snapshot, runBox->currentData().toLongLong()));
    const int row = modelBox->findText(wanted);
    modelBox->setCurrentIndex(row >= 0 ? row : (modelBox->count() > 0 ? 0 : -1));
}

void ComparePage::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    const bool first = !m_snapshot;
    CompareSide a = sideA();
    CompareSide b = sideB();
    m_snapshot = std::move(snapshot);
    m_updating = true;
    fillRuns(m_runA);
    fillRuns(m_runB);
    // Sides that followed the old scope follow the new one; a lone model gets a partner.
    const bool followScope = a.runId == m_scope && b.runId == m_scope && runId != m_scope;
    if (m_snapshot && (first || a.model.isEmpty() || b.model.isEmpty() || a == b || followScope)) {
        const QStringList models = modelsOf(*m_snapshot, runId);
        a = {runId, models.value(0)};
        b = {runId, models.value(1, models.value(0))};
    }
    m_scope = runId;
    m_updating = false;
    setSides(a, b);
}

void ComparePage::setSides(const CompareSide& a, const CompareSide& b) {
    m_updating = true;
    for (auto [runBox, modelBox, side] :
         {std::tuple{m_runA, m_modelA, a}, std::tuple{m_runB, m_modelB, b}}) {
        const int row = runBox->findData(qint64(side.runId));
        runBox->setCurrentIndex(row < 0 ? 0 : row);
        fillModels(runBox, modelBox, side.model);
    }
    m_updating = false;
    recompute();
}

CompareSide ComparePage::sideA() const {
    return {m_runA->currentData().toLongLong(), m_modelA->currentText()};
}

CompareSide ComparePage::sideB() const {
    return {m_runB->currentData().toLongLong(), m_modelB->currentText()};
}

void ComparePage::setScopeCache(ScopeCache* cache) {
    m_scopes = cache;
    connect(cache, &ScopeCache::ready, this, [this]() {
        if (m_waiting)
            recompute();
    });
}

SnapshotPtr ComparePage::snapshotFor(db::Id runId) {
    if (m_snapshot->hasScope(runId) || !m_scopes)
        return m_snapshot;
    const std::string version = m_snapshot->scopeVersion(runId);
    if (ScopeDataPtr cached = m_scopes->find(runId, version))
        return std::make_shared<const Snapshot>(m_snapshot->withScope(std::move(cached)));
    m_scopes->request(runId, version);
    return nullptr;
}

void ComparePage::setBaseline(metrics::Baseline baseline) {
    m_baseline->setCurrentIndex(m_baseline->findData(int(baseline)));
    recompute();
}

QString ComparePage::summaryText() const {
    return m_summary->text();
}

void ComparePage::recompute() {
    if (m_updating)
        return;
    const CompareSide a = sideA();
    const CompareSide b = sideB();
    m_comparison.reset();
    m_waiting = false;
    SnapshotPtr snapshotA;
    SnapshotPtr snapshotB;
    if (m_snapshot && m_snapshot->hasRuns() && !a.model.isEmpty() && !b.model.isEmpty() &&
        !(a == b)) {
        snapshotA = snapshotFor(a.runId);
        snapshotB = snapshotFor(b.runId);
        m_waiting = !snapshotA || !snapshotB;
    }
    if (!m_snapshot || !m_snapshot->hasRuns()) {
        m_summary->setText(
            tr("No runs yet — start the demo run, then compare its two models here."));
    } else if (a.model.isEmpty() || b.model.isEmpty()) {
        m_summary->setText(tr("Choose two models to compare."));
    } else if (a == b) {
        m_summary->setText(tr("A and B are the same: choose another model or run for B."));
    } else if (m_waiting) {
        m_summary->setText(tr("Reading the attempts of %1…").arg(sideLabel(snapshotA ? b : a)));
    } else {
        const auto baseline = static_cast<metrics::Baseline>(m_baseline->currentData().toInt());
        m_comparison = compareSides(*snapshotA, a, *snapshotB, b, baseline);
        const auto& c = *m_comparison;
        if (c.sharedTasks() == 0) {
            m_summary->setText(
                tr("%1 and %2 attempted no task in common.").arg(sideLabel(a), sideLabel(b)));
        } else {
            QString text =
                tr("<b>A</b> = %1, <b>B</b> = %2 on <b>%3</b> shared tasks: A faster on <b>%4</b>, "
                   "tie on <b>%5</b>, B faster on <b>%6</b>.")
                    .arg(sideLabel(a).toHtmlEscaped(), sideLabel(b).toHtmlEscaped())
                    .arg(c.sharedTasks())
                    .arg(c.wins)
                    .arg(c.ties)
                    .arg(c.losses);
            text += tr(" Geomean ratio A/B <b>%1</b>")
                        .arg(c.geomeanRatio ? times(*c.geomeanRatio) : tr("n/a"));
            if (c.ratioCi)
                text += tr(" (95% CI %1 – %2)").arg(times(c.ratioCi->low), times(c.ratioCi->high));
            text +=
                tr(", sign test p = %1: <b>%2</b>.")
                    .arg(c.signTestP < 0.001 ? tr("< 0.001") : QString::number(c.signTestP, 'f', 3),
                         QString::fromStdString(metrics::verdictText(c.verdict, c.minSharedTasks)));
            if (c.onlyA > 0 || c.onlyB > 0)
                text += tr(" Not compared (one side only): A %1, B %2 tasks.")
                            .arg(c.onlyA)
                            .arg(c.onlyB);
            m_summary->setText(text);
        }
    }
    m_model->setComparison(m_comparison);
    m_plot->setComparison(m_comparison);
}

void ComparePage::exportPlot() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export plot"), dir + QStringLiteral("/head-to-head.png"), plotExportFilter());
    if (path.isEmpty())
        return;
    const QString error = gui::exportPlot(m_plot, path);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
}

void ComparePage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("compare/splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("compare/baseline"), m_baseline->currentIndex());
}

void ComparePage::restoreState(const QSettings& settings) {
    m_splitter->restoreState(settings.value(QStringLiteral("compare/splitter")).toByteArray());
    m_baseline->setCurrentIndex(
        std::clamp(settings.value(QStringLiteral("compare/baseline"), 0).toInt(), 0, 1));
    recompute();
}

} // namespace kb::gui
