#include "suitespage.h"

#include "data/catalogwriter.h"
#include "data/suitefileimport.h"
#include "models/suitetasksmodel.h"
#include "pages/pythonhighlighter.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace kb::gui {

namespace {

// Rows by level, flag state and text (key, name or operator).
class TaskFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    int level = 0;
    bool flaggedOnly = false;
    QString text;
    void refresh() { invalidateFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex&) const override {
        const auto* m = static_cast<const SuiteTasksModel*>(sourceModel());
        const TaskInfo* t = m->taskAt(row);
        if (!t || (level != 0 && t->task.level != level) || (flaggedOnly && !t->flagged()))
            return false;
        if (text.isEmpty())
            return true;
        return QString::fromStdString(t->task.key).contains(text, Qt::CaseInsensitive) ||
               QString::fromStdString(t->task.name).contains(text, Qt::CaseInsensitive) ||
               t->ops.join(QLatin1Char(' ')).contains(text, Qt::CaseInsensitive);
    }
};

TaskFilterProxy* filterOf(QSortFilterProxyModel* proxy) {
    return static_cast<TaskFilterProxy*>(proxy);
}

} // namespace

SuitesPage::SuitesPage(QWidget* parent)
    : QWidget(parent)
    , m_suite(new QComboBox(this))
    , m_level(new QComboBox(this))
    , m_flags(new QComboBox(this))
    , m_search(new QLineEdit(this))
    , m_tasks(new SuiteTasksModel(this))
    , m_proxy(new TaskFilterProxy(this))
    , m_view(new QTableView(this))
    , m_header(new QLabel(this))
    , m_source(new QPlainTextEdit(this))
    , m_baselines(new BaselinesModel(this))
    , m_baselineView(new QTableView(this))
    , m_status(new QLabel(this))
    , m_empty(new QLabel(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_detailSplitter(new QSplitter(Qt::Vertical, this)) {
    m_suite->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_level->addItem(tr("All levels"), 0);
    for (int l = 1; l <= 4; ++l)
        m_level->addItem(tr("Level %1").arg(l), l);
    m_flags->addItem(tr("All tasks"), false);
    m_flags->addItem(tr("Flagged tasks"), true);
    m_search->setPlaceholderText(tr("Search task, name or operator"));
    m_search->setClearButtonEnabled(true);
    auto* importButton = new QPushButton(tr("Import folder…"), this);
    importButton->setToolTip(
        tr("A KernelBench problem folder (level1/, level2/, …) or a folder with suite.json"));
    auto* jsonlButton = new QPushButton(tr("Import JSON lines…"), this);
    jsonlButton->setToolTip(
        tr("A JSON-lines file in the columns of KernelBench's Hugging Face dataset: "
           "{\"name\", \"level\", \"problem_id\", \"code\"} per line (docs/import.md)"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Suite:"), this));
    bar->addWidget(m_suite);
    bar->addWidget(m_level);
    bar->addWidget(m_flags);
    bar->addWidget(m_search, 1);
    bar->addWidget(importButton);
    bar->addWidget(jsonlButton);

    m_proxy->setSourceModel(m_tasks);
    m_proxy->setSortRole(SuiteTasksModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SuiteTasksModel::LevelColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    m_view->setColumnWidth(SuiteTasksModel::KeyColumn, 140);
    m_view->setColumnWidth(SuiteTasksModel::NameColumn, 140);
    m_view->setColumnWidth(SuiteTasksModel::LevelColumn, 58);
    m_view->setColumnWidth(SuiteTasksModel::OpsColumn, 120);
    m_view->setColumnWidth(SuiteTasksModel::FlagsColumn, 90);

    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_source->setReadOnly(true);
    m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_source->setObjectName(QStringLiteral("taskSource"));
    new PythonHighlighter(m_source->document(), palette().color(QPalette::Base).lightness() < 128);
    m_baselineView->setModel(m_baselines);
    m_baselineView->verticalHeader()->hide();
    m_baselineView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_baselineView->horizontalHeader()->setStretchLastSection(true);

    auto* detail = new QWidget(this);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_header);
    detailLayout->addWidget(m_source, 1);
    auto* baselineBox = new QWidget(this);
    auto* baselineLayout = new QVBoxLayout(baselineBox);
    baselineLayout->setContentsMargins(0, 0, 0, 0);
    baselineLayout->addWidget(
        new QLabel(tr("<b>Stored baselines</b> (median per device, torch version and settings)"),
                   baselineBox));
    baselineLayout->addWidget(m_baselineView, 1);
    m_detailSplitter->addWidget(detail);
    m_detailSplitter->addWidget(baselineBox);
    m_detailSplitter->setStretchFactor(0, 3);
    m_detailSplitter->setStretchFactor(1, 1);
    m_splitter->addWidget(m_view);
    m_splitter->addWidget(m_detailSplitter);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setSizes({600, 560});

    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText); // import problems quote the files they concern
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_empty->setWordWrap(true);
    m_empty->setText(
        tr("No suites yet. Import a KernelBench folder (Import folder…) or a JSON-lines file of "
           "KernelBench's dataset (Import JSON lines…), or run the demo, which imports the sample "
           "suite."));

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_empty);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(m_status);

    connect(m_suite, &QComboBox::activated, this,
            [this]() { setSuite(m_suite->currentData().toLongLong()); });
    connect(m_level, &QComboBox::activated, this,
            [this]() { setLevelFilter(m_level->currentData().toInt()); });
    connect(m_flags, &QComboBox::activated, this,
            [this]() { setFlaggedOnly(m_flags->currentData().toBool()); });
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        filterOf(m_proxy)->text = text.trimmed();
        filterOf(m_proxy)->refresh();
    });
    connect(importButton, &QPushButton::clicked, this, &SuitesPage::importWithDialog);
    connect(jsonlButton, &QPushButton::clicked, this, &SuitesPage::importJsonlWithDialog);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showTask(current); });
    setCatalog(nullptr);
}

void SuitesPage::fillSuites() {
    const auto wanted = m_suite->currentData();
    m_suite->clear();
    m_suite->addItem(tr("All suites"), qint64(0));
    if (m_catalog) {
        for (const auto& s : m_catalog->suites)
            m_suite->addItem(QString::fromStdString(s.name), qint64(s.id));
    }
    int row = m_suite->findData(wanted);
    if (row < 0)
        row = m_suite->count() > 1 ? 1 : 0; // the first suite
    m_suite->setCurrentIndex(row);
}

void SuitesPage::setCatalog(CatalogPtr catalog) {
    m_catalog = std::move(catalog);
    fillSuites();
    m_empty->setVisible(!m_catalog || m_catalog->suites.empty());
    setSuite(m_suite->currentData().toLongLong());
}

void SuitesPage::setSuite(db::Id suiteId) {
    const int row = m_suite->findData(qint64(suiteId));
    if (row >= 0)
        m_suite->setCurrentIndex(row);
    m_tasks->setCatalog(m_catalog, suiteId);
    if (m_proxy->rowCount() > 0)
        m_view->selectionModel()->setCurrentIndex(
            m_proxy->index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    else
        showTask({});
}

void SuitesPage::setLevelFilter(int level) {
    m_level->setCurrentIndex(std::max(0, m_level->findData(level)));
    filterOf(m_proxy)->level = level;
    filterOf(m_proxy)->refresh();
}

void SuitesPage::setFlaggedOnly(bool flagged) {
    m_flags->setCurrentIndex(flagged ? 1 : 0);
    filterOf(m_proxy)->flaggedOnly = flagged;
    filterOf(m_proxy)->refresh();
}

void SuitesPage::selectTask(db::Id taskId) {
    const int row = m_tasks->rowOfTask(taskId);
    if (row < 0)
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_tasks->index(row, 0));
    if (index.isValid())
        m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
}

void SuitesPage::showTask(const QModelIndex& proxyIndex) {
    const TaskInfo* t =
        proxyIndex.isValid() ? m_tasks->taskAt(m_proxy->mapToSource(proxyIndex).row()) : nullptr;
    if (!t) {
        m_header->setText(m_catalog && !m_catalog->tasks.empty() ? tr("Select a task.")
                                                                 : QString());
        m_source->clear();
        m_baselines->setBaselines({});
        return;
    }
    QString header = tr("<b>%1</b> — %2 · level %3")
                         .arg(QString::fromStdString(t->task.key).toHtmlEscaped(),
                              QString::fromStdString(t->task.name).toHtmlEscaped())
                         .arg(t->task.level);
    if (!t->ops.isEmpty())
        header += tr("<br/>Operators: %1").arg(t->ops.join(QStringLiteral(", ")).toHtmlEscaped());
    if (t->flagged())
        header += tr("<br/><span style=\"color:#c62828\">⚠ Validation flags: %1</span>")
                      .arg(t->flagTexts().join(QStringLiteral("; ")).toHtmlEscaped());
    m_header->setText(header);
    m_source->setPlainText(QString::fromStdString(t->task.source));
    m_baselines->setBaselines(m_catalog->baselinesOf(t->task));
}

QString SuitesPage::importFolder(const QString& folder) {
    if (m_databasePath.isEmpty())
        return tr("Open a database first.");
    QString summary;
    const QString error = importSuiteFolder(m_databasePath, folder, {}, &summary);
    showImportOutcome(error, summary);
    return error;
}

QString SuitesPage::importJsonl(const QString& file) {
    if (m_databasePath.isEmpty())
        return tr("Open a database first.");
    QString summary;
    const QString error = importSuiteJsonl(m_databasePath, file, {}, &summary);
    showImportOutcome(error, summary);
    return error;
}

void SuitesPage::showImportOutcome(const QString& error, const QString& summary) {
    m_status->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("color: #c62828;"));
    m_status->setText(error.isEmpty() ? summary : error);
    if (error.isEmpty())
        Q_EMIT catalogChanged();
}

void SuitesPage::importWithDialog() {
    const QString folder =
        folderDialogHook ? folderDialogHook()
                         : QFileDialog::getExistingDirectory(this, tr("Import a suite folder"));
    if (!folder.isEmpty())
        importFolder(folder);
}

void SuitesPage::importJsonlWithDialog() {
    const QString file =
        jsonlDialogHook
            ? jsonlDialogHook()
            : QFileDialog::getOpenFileName(this, tr("Import a suite from JSON lines"), QString(),
                                           tr("JSON lines (*.jsonl *.json);;All files (*)"));
    if (!file.isEmpty())
        importJsonl(file);
}

QString SuitesPage::sourceText() const {
    return m_source->toPlainText();
}

QString SuitesPage::taskHeaderText() const {
    return m_header->text();
}

QString SuitesPage::statusText() const {
    return m_status->text();
}

void SuitesPage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("suites/splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("suites/detailSplitter"), m_detailSplitter->saveState());
}

void SuitesPage::restoreState(const QSettings& settings) {
    m_splitter->restoreState(settings.value(QStringLiteral("suites/splitter")).toByteArray());
    m_detailSplitter->restoreState(
        settings.value(QStringLiteral("suites/detailSplitter")).toByteArray());
}

} // namespace kb::gui
