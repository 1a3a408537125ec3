#include "plotspage.h"

#include "plots/costscoreplot.h"
#include "plots/fastpcurveplot.h"
#include "plots/plotexport.h"
#include "plots/speedupdistributionplot.h"
#include "plots/turnsspeedupplot.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace kb::gui {

namespace {

QWidget* titled(const QString& title, QWidget* plot, QPushButton* exportButton, QWidget* extra,
                QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* bar = new QHBoxLayout;
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()), box);
    // Wrapped, a long title never sets the width of the page.
    label->setWordWrap(true);
    bar->addWidget(label, 1);
    if (extra)
        bar->addWidget(extra);
    bar->addWidget(exportButton);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(plot, 1);
    return box;
}

} // namespace

PlotsPage::PlotsPage(QWidget* parent)
    : QWidget(parent)
    , m_distribution(new SpeedupDistributionPlot(this))
    , m_fastP(new FastPCurvePlot(this))
    , m_costScore(new CostScorePlot(this))
    , m_turnsSpeedup(new TurnsSpeedupPlot(this))
    , m_baseline(new QComboBox(this))
    , m_level(new QComboBox(this))
    , m_score(new QComboBox(this))
    , m_columns(new QSplitter(Qt::Horizontal, this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_sideSplitter(new QSplitter(Qt::Vertical, this)) {
    m_baseline->addItem(tr("vs PyTorch eager"), int(metrics::Baseline::Eager));
    m_baseline->addItem(tr("vs torch.compile"), int(metrics::Baseline::Compile));
    m_level->addItem(tr("All levels"), 0);
    m_score->addItem(tr("Pass rate"), int(ScoreMeasure::PassRate));
    m_score->addItem(tr("fast_1 vs eager"), int(ScoreMeasure::Fast1Eager));

    auto* exportDistribution = new QPushButton(tr("Export…"), this);
    auto* exportFastP = new QPushButton(tr("Export…"), this);
    auto* exportCostScore = new QPushButton(tr("Export…"), this);
    auto* exportTurns = new QPushButton(tr("Export…"), this);
    for (auto* button : {exportDistribution, exportFastP, exportCostScore, exportTurns})
        button->setToolTip(tr("Save as PNG, SVG or PDF"));

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Baseline:"), this));
    top->addWidget(m_baseline);
    top->addStretch(1);

    m_splitter->addWidget(
        titled(tr("Speedup per task, by level and model (best of k, correct tasks; bar = median)"),
               m_distribution, exportDistribution, nullptr, m_splitter));
    m_splitter->addWidget(titled(tr("fast_p: share of all tasks correct and faster than p×"),
                                 m_fastP, exportFastP, m_level, m_splitter));
    m_splitter->setChildrenCollapsible(false);
    // Two plots a column keep every plot a readable height at 1280×800.
    m_sideSplitter->addWidget(titled(tr("Cost vs score, one point per model"), m_costScore,
                                     exportCostScore, m_score, m_sideSplitter));
    m_sideSplitter->addWidget(titled(tr("Turns vs speedup, correct multi-turn and agent attempts"),
                                     m_turnsSpeedup, exportTurns, nullptr, m_sideSplitter));
    m_sideSplitter->setChildrenCollapsible(false);
    m_columns->addWidget(m_splitter);
    m_columns->addWidget(m_sideSplitter);
    m_columns->setStretchFactor(0, 3);
    m_columns->setStretchFactor(1, 2);
    m_columns->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_columns, 1);

    connect(m_baseline, &QComboBox::activated, this, [this]() {
        const auto baseline = static_cast<metrics::Baseline>(m_baseline->currentData().toInt());
        m_distribution->setBaseline(baseline);
        m_fastP->setBaseline(baseline);
    });
    connect(m_level, &QComboBox::activated, this,
            [this]() { m_fastP->setLevel(m_level->currentData().toInt()); });
    connect(m_score, &QComboBox::activated, this, [this]() {
        m_costScore->setMeasure(static_cast<ScoreMeasure>(m_score->currentData().toInt()));
    });
    connect(exportDistribution, &QPushButton::clicked, this,
            [this]() { exportWithDialog(m_distribution, QStringLiteral("speedup-distribution")); });
    connect(exportFastP, &QPushButton::clicked, this,
            [this]() { exportWithDialog(m_fastP, QStringLiteral("fast-p")); });
    connect(exportCostScore, &QPushButton::clicked, this,
            [this]() { exportWithDialog(m_costScore, QStringLiteral("cost-vs-score")); });
    connect(exportTurns, &QPushButton::clicked, this,
            [this]() { exportWithDialog(m_turnsSpeedup, QStringLiteral("turns-vs-speedup")); });
}

void PlotsPage::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    const int wanted = m_level->currentData().toInt();
    m_level->clear();
    m_level->addItem(tr("All levels"), 0);
    if (snapshot) {
        if (const auto* board = snapshot->leaderboard(runId)) {
            for (int level : board->levels)
                m_level->addItem(tr("Level %1").arg(level), level);
        }
    }
    const int row = m_level->findData(wanted);
    m_level->setCurrentIndex(row < 0 ? 0 : row);
    m_fastP->setLevel(m_level->currentData().toInt());
    m_distribution->setSnapshot(snapshot, runId);
    m_fastP->setSnapshot(snapshot, runId);
    m_costScore->setSnapshot(snapshot, runId);
    m_turnsSpeedup->setSnapshot(snapshot, runId);
}

void PlotsPage::exportWithDialog(QCustomPlot* plot, const QString& baseName) {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export plot"), dir + QLatin1Char('/') + baseName + QStringLiteral(".png"),
        plotExportFilter());
    if (path.isEmpty())
        return;
    const QString error = exportPlot(plot, path);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
}

void PlotsPage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("plots/splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("plots/columns"), m_columns->saveState());
    settings.setValue(QStringLiteral("plots/sideSplitter"), m_sideSplitter->saveState());
    settings.setValue(QStringLiteral("plots/baseline"), m_baseline->currentIndex());
    settings.setValue(QStringLiteral("plots/score"), m_score->currentIndex());
}

void PlotsPage::restoreState(const QSettings& settings) {
    m_splitter->restoreState(settings.value(QStringLiteral("plots/splitter")).toByteArray());
    m_baseline->setCurrentIndex(
        std::clamp(settings.value(QStringLiteral("plots/baseline"), 0).toInt(), 0, 1));
    const auto baseline = static_cast<metrics::Baseline>(m_baseline->currentData().toInt());
    m_distribution->setBaseline(baseline);
    m_fastP->setBaseline(baseline);
    m_columns->restoreState(settings.value(QStringLiteral("plots/columns")).toByteArray());
    m_sideSplitter->restoreState(
        settings.value(QStringLiteral("plots/sideSplitter")).toByteArray());
    m_score->setCurrentIndex(
        std::clamp(settings.value(QStringLiteral("plots/score"), 0).toInt(), 0, 1));
    m_costScore->setMeasure(static_cast<ScoreMeasure>(m_score->currentData().toInt()));
}

} // namespace kb::gui
