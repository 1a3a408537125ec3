#include "importcandidatesdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace kb::gui {

ImportCandidatesDialog::ImportCandidatesDialog(const CatalogPtr& catalog, QWidget* parent)
    : QDialog(parent)
    , m_path(new QLineEdit(this))
    , m_model(new QLineEdit(this))
    , m_suite(new QComboBox(this))
    , m_runName(new QLineEdit(this))
    , m_device(new QComboBox(this))
    , m_start(new QComboBox(this))
    , m_error(new QLabel(this)) {
    setWindowTitle(tr("Import candidates"));
    m_path->setPlaceholderText(tr("KernelBench run folder or JSON-lines file"));
    m_path->setToolTip(
        tr("A KernelBench run folder (level_<L>_problem_<id>_sample_<k>_kernel.py files, one "
           "model) or a JSON-lines file of {\"task\", \"model\", \"sample\", \"code\"} objects "
           "(docs/import.md)"));
    auto* folderButton = new QPushButton(tr("Folder…"), this);
    auto* fileButton = new QPushButton(tr("File…"), this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(folderButton);
    pathRow->addWidget(fileButton);

    m_model->setPlaceholderText(tr("Required for a run folder; a JSON line's model overrides it"));
    if (catalog) {
        for (const auto& s : catalog->suites)
            m_suite->addItem(QString::fromStdString(s.name));
    }
    m_runName->setPlaceholderText(tr("<suite> / imported <models>"));
    m_device->addItem(tr("Automatic"), QStringLiteral("auto"));
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA"), QStringLiteral("cuda"));
    m_start->addItem(tr("Evaluate in this window"), int(Start::InWindow));
    m_start->addItem(tr("Evaluate in the background"), int(Start::InBackground));
    m_start->addItem(tr("Only store the run (evaluate later)"), int(Start::No));

    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("Candidates:"), pathRow);
    form->addRow(tr("Model:"), m_model);
    form->addRow(tr("Suite:"), m_suite);
    form->addRow(tr("Run name:"), m_runName);
    form->addRow(tr("Device:"), m_device);
    form->addRow(tr("Then:"), m_start);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Import"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(
        tr("Kernels written elsewhere become a new run of the suite, evaluated like generated "
           "ones. Nothing is stored when any file or line cannot be used."),
        this));
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    connect(folderButton, &QPushButton::clicked, this, [this]() {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("KernelBench run folder"), m_path->text());
        if (!dir.isEmpty())
            m_path->setText(dir);
    });
    connect(fileButton, &QPushButton::clicked, this, [this]() {
        const QString file =
            QFileDialog::getOpenFileName(this, tr("Candidates as JSON lines"), m_path->text(),
                                         tr("JSON lines (*.jsonl *.json);;All files (*)"));
        if (!file.isEmpty())
            m_path->setText(file);
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &ImportCandidatesDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(640, sizeHint().height());
}

CandidateImportRequest ImportCandidatesDialog::request() const {
    CandidateImportRequest r;
    r.path = m_path->text().trimmed();
    r.model = m_model->text().trimmed();
    r.suiteName = m_suite->currentText();
    r.runName = m_runName->text().trimmed();
    r.device = m_device->currentData().toString();
    return r;
}

ImportCandidatesDialog::Start ImportCandidatesDialog::start() const {
    return static_cast<Start>(m_start->currentData().toInt());
}

QString ImportCandidatesDialog::errorText() const {
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}

void ImportCandidatesDialog::accept() {
    const QString error = submit ? submit(request(), start()) : QString();
    if (!error.isEmpty()) {
        m_error->setText(error);
        m_error->show();
        return;
    }
    QDialog::accept();
}

} // namespace kb::gui
