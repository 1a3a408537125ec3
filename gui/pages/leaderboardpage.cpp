#include "leaderboardpage.h"

#include "data/format.h"
#include "metrics/definitions.h"
#include "models/leaderboardcolumnfilter.h"
#include "models/leaderboardmodel.h"
#include "report/leaderboardformat.h"
#include "report/runsettingssummary.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace kb::gui {

LeaderboardPage::LeaderboardPage(QWidget* parent)
    : QWidget(parent)
    , m_model(new LeaderboardModel(this))
    , m_proxy(new LeaderboardColumnFilter(this))
    , m_levelChoice(new QComboBox(this))
    , m_view(new QTableView(this))
    , m_header(new QLabel(this))
    , m_footer(new QLabel(this)) {
    m_proxy->setSourceModel(m_model);
    m_levelChoice->setObjectName(QStringLiteral("levelShown"));
    m_levelChoice->setToolTip(tr("Which metric groups to show"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(LeaderboardModel::ModelColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

    m_header->setWordWrap(true);
    m_footer->setWordWrap(true);
    m_footer->setTextFormat(Qt::RichText);
    m_footer->setText(tr(
        "<b>Pass</b>: correct tasks / all tasks of the level. <b>fast₁</b>: tasks correct "
        "<i>and</i> faster than the baseline (PyTorch eager or torch.compile), over all "
        "tasks. <b>pass@1</b>, <b>pass@k</b>: unbiased estimates over each task's samples (k = "
        "samples "
        "per task). <b>Geomean</b>: geometric mean speedup over correct, timed tasks, with its 95% "
        "bootstrap interval. "
        "<b>Overall</b>: levels weighted 100 / 100 / 50 (CUDA-Agent Table 1). Suspicious "
        "attempts count only once a reviewer accepts them; rejected ones count as failed. "
        "Hover a number for its Wilson interval and sample sizes; n/a = no value exists."));

    auto* definitions = new QPushButton(tr("Metric definitions…"), this);
    auto* copy = new QPushButton(tr("Copy as Markdown"), this);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_header, 1);
    buttons->addWidget(m_levelChoice);
    buttons->addWidget(copy);
    buttons->addWidget(definitions);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_footer);

    connect(m_levelChoice, &QComboBox::activated, this,
            [this]() { setLevelShown(m_levelChoice->currentData().toInt()); });
    connect(definitions, &QPushButton::clicked, this, &LeaderboardPage::showDefinitions);
    connect(copy, &QPushButton::clicked, this, &LeaderboardPage::copyMarkdown);
}

void LeaderboardPage::setSnapshot(SnapshotPtr snapshot, db::Id runId) {
    m_model->setSnapshot(snapshot, runId);
    const metrics::Leaderboard* board = m_model->leaderboard();
    const int shown = m_proxy->level();
    m_levelChoice->clear();
    m_levelChoice->addItem(tr("Overall and every level"), LeaderboardColumnFilter::AllLevels);
    m_levelChoice->addItem(tr("Overall only"), metrics::kOverallLevel);
    if (board) {
        for (int level : board->levels)
            m_levelChoice->addItem(tr("Level %1 only").arg(level), level);
    }
    const int row = m_levelChoice->findData(shown);
    m_levelChoice->setCurrentIndex(row < 0 ? 0 : row);
    m_proxy->setLevel(m_levelChoice->currentData().toInt());
    if (!board || board->models.empty()) {
        m_header->setText(tr("No finished attempts to rank yet."));
        return;
    }
    QStringList levels;
    for (const auto& [level, tasks] : board->tasksPerLevel) {
        const auto weight = board->levelWeights.find(level);
        levels << tr("L%1: %2 tasks, weight %3")
                      .arg(level)
                      .arg(tasks)
                      .arg(weight == board->levelWeights.end() ? 0.0 : weight->second);
    }
    const QString scope = runId == 0 ? tr("All runs") : tr("Run %1").arg(runId);
    QString header = tr("%1 · %2 models · %3")
                         .arg(scope)
                         .arg(board->models.size())
                         .arg(levels.join(QStringLiteral("; ")));
    // What the numbers were measured with: precision, TF32, compile mode, prompt template...
    if (const RunSummary* run = runId != 0 && snapshot ? snapshot->findRun(runId) : nullptr)
        header += QLatin1Char('\n') + report::runSettingsLine(run->run);
    m_header->setText(header);
    m_view->resizeColumnsToContents();
}

void LeaderboardPage::setLevelShown(int level) {
    const int row = m_levelChoice->findData(level);
    m_levelChoice->setCurrentIndex(row < 0 ? 0 : row);
    m_proxy->setLevel(m_levelChoice->currentData().toInt());
    m_view->resizeColumnsToContents();
}

QString LeaderboardPage::markdown() const {
    const metrics::Leaderboard* board = m_model->leaderboard();
    return board ? report::formatLeaderboardMarkdown(*board) : QString();
}

void LeaderboardPage::copyMarkdown() {
    QApplication::clipboard()->setText(markdown());
}

void LeaderboardPage::showDefinitions() {
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Metric definitions"));
    auto* text = new QTextBrowser(dialog);
    text->setMarkdown(
        QString::fromUtf8(metrics::definitionsMarkdown().data(),
                          static_cast<qsizetype>(metrics::definitionsMarkdown().size())));
    auto* box = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(box, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(text);
    layout->addWidget(box);
    dialog->resize(fontMetrics().averageCharWidth() * 100, fontMetrics().height() * 36);
    dialog->show();
}

void LeaderboardPage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("leaderboard/sortColumn"), m_proxy->sortColumn());
    settings.setValue(QStringLiteral("leaderboard/sortOrder"), int(m_proxy->sortOrder()));
    settings.setValue(QStringLiteral("leaderboard/levelShown"), m_proxy->level());
}

void LeaderboardPage::restoreState(const QSettings& settings) {
    const int column = settings.value(QStringLiteral("leaderboard/sortColumn"), 0).toInt();
    const auto order = static_cast<Qt::SortOrder>(
        settings.value(QStringLiteral("leaderboard/sortOrder"), 0).toInt());
    m_view->sortByColumn(column, order);
    m_proxy->setLevel(
        settings.value(QStringLiteral("leaderboard/levelShown"), LeaderboardColumnFilter::AllLevels)
            .toInt());
}

} // namespace kb::gui
