#include "runlauncherdialog.h"

#include "db/database.h"
#include "generation/preflight.h"
#include "generation/providerclients.h"
#include "providers/prompt.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

namespace kb::gui {

RunLauncherDialog::RunLauncherDialog(CatalogPtr catalog, QWidget* parent)
    : QDialog(parent)
    , m_catalog(std::move(catalog))
    , m_name(new QLineEdit(this))
    , m_suite(new QComboBox(this))
    , m_taskFilter(new QLineEdit(this))
    , m_modelItems(new QStandardItemModel(this))
    , m_models(new QListView(this))
    , m_mode(new QComboBox(this))
    , m_samples(new QSpinBox(this))
    , m_precision(new QComboBox(this))
    , m_tf32(new QCheckBox(tr("Allow TF32 matrix arithmetic (float32 tasks)"), this))
    , m_baseline(new QComboBox(this))
    , m_compileMode(new QComboBox(this))
    , m_promptTemplate(new QComboBox(this))
    , m_turns(new QSpinBox(this))
    , m_maxTurns(new QSpinBox(this))
    , m_maxTokens(new QSpinBox(this))
    , m_skill(new QLineEdit(this))
    , m_backend(new QComboBox(this))
    , m_estimate(new QLabel(this))
    , m_skipPreflight(new QCheckBox(tr("Skip the pre-flight request"), this))
    , m_error(new QLabel(this)) {
    setWindowTitle(tr("New run"));
    m_name->setPlaceholderText(tr("optional"));
    if (m_catalog) {
        for (const auto& s : m_catalog->suites)
            m_suite->addItem(QString::fromStdString(s.name), qint64(s.id));
        for (const auto& m : m_catalog->models) {
            auto* item = new QStandardItem(QStringLiteral("%1 (%2)").arg(
                QString::fromStdString(m.name), QString::fromStdString(m.providerName)));
            item->setData(QString::fromStdString(m.name), Qt::UserRole);
            item->setCheckable(true);
            item->setEditable(false);
            m_modelItems->appendRow(item);
        }
    }
    m_models->setModel(m_modelItems);
    m_models->setMaximumHeight(110);
    auto* levels = new QHBoxLayout;
    for (int l = 0; l < 4; ++l) {
        m_levels[static_cast<std::size_t>(l)] = new QCheckBox(tr("L%1").arg(l + 1), this);
        m_levels[static_cast<std::size_t>(l)]->setChecked(l < 3);
        levels->addWidget(m_levels[static_cast<std::size_t>(l)]);
    }
    levels->addStretch(1);
    m_taskFilter->setPlaceholderText(tr("every task; or part of a task key or name"));
    m_mode->addItem(tr("one-shot"), engine::kModeOneShot);
    m_mode->addItem(tr("multi-turn (feedback from each evaluation)"), engine::kModeMultiTurn);
    m_mode->addItem(tr("agent (tools, skill file)"), engine::kModeAgent);
    m_samples->setRange(1, 100);
    for (const char* p : {"fp32", "fp16", "bf16"})
        m_precision->addItem(QString::fromLatin1(p));
    m_precision->setToolTip(tr(
        "Inputs and weights in this precision; tolerance 1e-4 for fp32, 1e-2 for fp16 and bf16"));
    m_tf32->setToolTip(tr("Off by default: TF32 alone can pass a 1e-2 tolerance with large "
                          "speedups; recorded with every number"));
    m_baseline->addItem(tr("eager"), int(BaselineMode::Eager));
    m_baseline->addItem(tr("eager + torch.compile"), int(BaselineMode::EagerAndCompile));
    m_baseline->setCurrentIndex(1);
    for (const char* mode :
         {"default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"})
        m_compileMode->addItem(QString::fromLatin1(mode), QString::fromLatin1(mode));
    m_promptTemplate->addItem(tr("suite default (kernelbench for KernelBench suites)"), QString());
    for (const QString& name : engine::builtinPromptTemplates())
        m_promptTemplate->addItem(name, name);
    m_promptTemplate->addItem(tr("File…"), QStringLiteral("<choose a file>"));
    m_promptTemplate->setToolTip(tr("The one-shot prompt; its full text is stored with the run"));
    m_turns->setRange(1, 50);
    m_turns->setValue(3);
    m_maxTurns->setRange(1, 1000);
    m_maxTurns->setValue(50);
    m_maxTokens->setRange(1, 1000000);
    m_maxTokens->setSingleStep(1024);
    m_maxTokens->setValue(16384);
    m_maxTokens->setToolTip(
        tr("Output tokens each model call may use (sent as the request's max_tokens)"));
    m_skill->setPlaceholderText(tr("default skill"));
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    auto* skillRow = new QHBoxLayout;
    skillRow->addWidget(m_skill, 1);
    skillRow->addWidget(browse);
    m_backend->addItem(tr("local GPUs"), int(Backend::LocalGpus));
    m_backend->addItem(tr("CPU (no GPU)"), int(Backend::Cpu));
    m_backend->addItem(tr("Slurm cluster"), int(Backend::Slurm));
    m_estimate->setWordWrap(true);
    m_estimate->setObjectName(QStringLiteral("runEstimate"));
    m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setObjectName(QStringLiteral("launcherMessage"));
    m_skipPreflight->setObjectName(QStringLiteral("skipPreflight"));
    m_skipPreflight->setToolTip(
        tr("Before the run starts each model gets one short request built like the run's, so a "
           "wrong key, a refused parameter or an unknown model stops it here (as kbstudio-cli "
           "run --no-preflight, ticking this skips it)"));

    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Suite:"), m_suite);
    form->addRow(tr("Levels:"), levels);
    form->addRow(tr("&Tasks:"), m_taskFilter);
    form->addRow(tr("&Models:"), m_models);
    form->addRow(tr("M&ode:"), m_mode);
    form->addRow(tr("Sam&ples per task:"), m_samples);
    form->addRow(tr("&Precision:"), m_precision);
    form->addRow(QString(), m_tf32);
    form->addRow(tr("&Baselines:"), m_baseline);
    form->addRow(tr("Compile mo&de:"), m_compileMode);
    form->addRow(tr("Prompt t&emplate:"), m_promptTemplate);
    form->addRow(tr("T&urns (multi-turn):"), m_turns);
    form->addRow(tr("Model &calls (agent):"), m_maxTurns);
    form->addRow(tr("O&utput tokens per call:"), m_maxTokens);
    form->addRow(tr("S&kill file (agent):"), skillRow);
    form->addRow(tr("Bac&kend:"), m_backend);
    form->addRow(QString(), m_skipPreflight);

    auto* buttons = new QDialogButtonBox(this);
    auto* here = buttons->addButton(tr("Run in this window"), QDialogButtonBox::AcceptRole);
    auto* background = buttons->addButton(tr("Run in background"), QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Cancel);
    here->setToolTip(tr("For small runs: stops when this window closes (resume later)"));
    background->setToolTip(
        tr("A separate kbstudio-cli process: keeps running when this window closes"));
    background->setDefault(true);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_estimate);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    connect(here, &QPushButton::clicked, this, [this]() { finish(Start::HereInThisWindow); });
    connect(background, &QPushButton::clicked, this, [this]() { finish(Start::InBackground); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QToolButton::clicked, this, [this]() {
        const QString file = QFileDialog::getOpenFileName(this, tr("Skill file"), {},
                                                          tr("Markdown (*.md);;All files (*)"));
        if (!file.isEmpty())
            m_skill->setText(file);
    });
    for (auto* box :
         {m_suite, m_mode, m_precision, m_baseline, m_compileMode, m_promptTemplate, m_backend})
        connect(box, &QComboBox::currentIndexChanged, this, &RunLauncherDialog::updateEstimate);
    connect(m_baseline, &QComboBox::currentIndexChanged, this,
            &RunLauncherDialog::updateModeFields);
    connect(m_promptTemplate, &QComboBox::activated, this, [this](int index) {
        if (m_promptTemplate->itemData(index).toString() == QLatin1String("<choose a file>"))
            choosePromptFile();
    });
    for (auto* spin : {m_samples, m_turns, m_maxTurns, m_maxTokens})
        connect(spin, &QSpinBox::valueChanged, this, &RunLauncherDialog::updateEstimate);
    for (auto* check : m_levels)
        connect(check, &QCheckBox::toggled, this, &RunLauncherDialog::updateEstimate);
    connect(m_taskFilter, &QLineEdit::textChanged, this, &RunLauncherDialog::updateEstimate);
    connect(m_modelItems, &QStandardItemModel::itemChanged, this,
            &RunLauncherDialog::updateEstimate);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &RunLauncherDialog::updateModeFields);
    updateModeFields();
    updateEstimate();
    setMinimumWidth(560);
}

RunPlan RunLauncherDialog::plan() const {
    RunPlan p;
    p.name = m_name->text().trimmed();
    p.suiteId = m_suite->currentData().toLongLong();
    for (int row = 0; row < m_modelItems->rowCount(); ++row) {
        if (m_modelItems->item(row)->checkState() == Qt::Checked)
            p.models << m_modelItems->item(row)->data(Qt::UserRole).toString();
    }
    for (int l = 0; l < 4; ++l) {
        if (m_levels[static_cast<std::size_t>(l)]->isChecked())
            p.levels << l + 1;
    }
    if (p.levels.size() == 4)
        p.levels.clear();
    p.taskFilter = m_taskFilter->text().trimmed();
    p.mode = m_mode->currentData().toString();
    p.samples = m_samples->value();
    p.precision = m_precision->currentText();
    p.tf32 = m_tf32->isChecked();
    p.baseline = static_cast<BaselineMode>(m_baseline->currentData().toInt());
    p.compileMode = m_compileMode->currentData().toString();
    const QString prompt = m_promptTemplate->currentData().toString();
    p.promptTemplate = prompt == QLatin1String("<choose a file>") ? QString() : prompt;
    p.turns = m_turns->value();
    p.maxTurns = m_maxTurns->value();
    p.maxTokens = m_maxTokens->value();
    p.skillFile = m_skill->text().trimmed();
    p.backend = static_cast<Backend>(m_backend->currentData().toInt());
    return p;
}

void RunLauncherDialog::setPlan(const RunPlan& p) {
    m_name->setText(p.name);
    m_suite->setCurrentIndex(std::max(0, m_suite->findData(qint64(p.suiteId))));
    for (int row = 0; row < m_modelItems->rowCount(); ++row) {
        auto* item = m_modelItems->item(row);
        item->setCheckState(p.models.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked
                                                                                   : Qt::Unchecked);
    }
    for (int l = 0; l < 4; ++l)
        m_levels[static_cast<std::size_t>(l)]->setChecked(p.levels.isEmpty() ||
                                                          p.levels.contains(l + 1));
    m_taskFilter->setText(p.taskFilter);
    m_mode->setCurrentIndex(std::max(0, m_mode->findData(p.mode)));
    m_samples->setValue(p.samples);
    m_precision->setCurrentText(p.precision);
    m_tf32->setChecked(p.tf32);
    const bool maxAutotune = p.baseline == BaselineMode::MaxAutotune;
    m_baseline->setCurrentIndex(std::max(
        0, m_baseline->findData(int(maxAutotune ? BaselineMode::EagerAndCompile : p.baseline))));
    m_compileMode->setCurrentIndex(std::max(
        0, m_compileMode->findData(maxAutotune ? QStringLiteral("max-autotune") : p.compileMode)));
    setPromptTemplate(p.promptTemplate);
    m_turns->setValue(p.turns);
    m_maxTurns->setValue(p.maxTurns);
    m_maxTokens->setValue(p.maxTokens);
    m_skill->setText(p.skillFile);
    m_backend->setCurrentIndex(std::max(0, m_backend->findData(int(p.backend))));
    updateEstimate();
}

void RunLauncherDialog::updateModeFields() {
    const QString mode = m_mode->currentData().toString();
    m_turns->setEnabled(mode == engine::kModeMultiTurn);
    m_maxTurns->setEnabled(mode == engine::kModeAgent);
    m_skill->setEnabled(mode == engine::kModeAgent);
    m_promptTemplate->setEnabled(mode != engine::kModeAgent);
    m_compileMode->setEnabled(static_cast<BaselineMode>(m_baseline->currentData().toInt()) !=
                              BaselineMode::Eager);
}

void RunLauncherDialog::choosePromptFile() {
    const QString file =
        QFileDialog::getOpenFileName(this, tr("Prompt template"), engine::promptsDir(),
                                     tr("Prompt templates (*.prompt *.txt *.md);;All files (*)"));
    setPromptTemplate(file);
}

void RunLauncherDialog::setPromptTemplate(const QString& nameOrFile) {
    int index = m_promptTemplate->findData(nameOrFile);
    if (index < 0) {
        // A file: listed before "File…" under its name, with the path as its data.
        index = m_promptTemplate->count() - 1;
        m_promptTemplate->insertItem(index, QFileInfo(nameOrFile).fileName(), nameOrFile);
        m_promptTemplate->setItemData(index, nameOrFile, Qt::ToolTipRole);
    }
    m_promptTemplate->setCurrentIndex(index);
}

void RunLauncherDialog::updateEstimate() {
    if (!m_catalog) {
        m_estimate->setText(tr("Open a database first."));
        return;
    }
    const RunPlan p = plan();
    const RunEstimate e = estimateRun(*m_catalog, p);
    QString text = QStringLiteral("<b>%1</b>").arg(e.text().toHtmlEscaped());
    if (!e.notes.isEmpty())
        text += QStringLiteral("<br/><small>%1</small>")
                    .arg(e.notes.join(QStringLiteral("; ")).toHtmlEscaped());
    m_estimate->setText(text);
}

QString RunLauncherDialog::estimateText() const {
    return m_estimate->text();
}

QString RunLauncherDialog::validationError() const {
    if (!m_catalog)
        return tr("Open a database first.");
    QString error;
    toRunSpec(*m_catalog, plan(), &error);
    return error;
}

void RunLauncherDialog::finish(Start start) {
    const QString error = validationError();
    if (!error.isEmpty()) {
        m_error->setText(error);
        return;
    }
    if (!m_skipPreflight->isChecked() && !preflightPasses())
        return;
    m_start = start;
    accept();
}

QString RunLauncherDialog::message() const {
    return m_error->text();
}

// Blocks in the pre-flight's local event loop (one short request per model); the dialog is
// disabled meanwhile so nothing starts twice.
bool RunLauncherDialog::preflightPasses() {
    QString error;
    const auto spec = toRunSpec(*m_catalog, plan(), &error);
    if (!spec) {
        m_error->setText(error);
        return false;
    }
    m_error->setText(tr("Asking each model once before the run starts…"));
    setEnabled(false);
    QString message;
    try {
        db::Database database(m_catalog->databasePath.toStdString(),
                              db::Database::Access::ReadOnly);
        std::unique_ptr<engine::KeyStore> ownKeys;
        const engine::KeyStore* keys = m_keys;
        if (!keys) {
            ownKeys = engine::defaultKeyStore();
            keys = ownKeys.get();
        }
        const auto check = engine::runPreflight(database.connection(), spec->models, spec->mode,
                                                spec->generation, keys);
        if (!check.ok())
            message = tr("The pre-flight request failed; the run was not started:\n%1\nFix the "
                         "provider or model settings, or tick \"Skip the pre-flight request\".")
                          .arg(check.errors.join(QLatin1Char('\n')));
    } catch (const std::exception& e) { // engine::Error, db::Error
        message = QString::fromUtf8(e.what());
    }
    setEnabled(true);
    m_error->setText(message);
    return message.isEmpty();
}

} // namespace kb::gui
