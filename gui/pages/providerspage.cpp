#include "providerspage.h"

#include "data/catalogwriter.h"
#include "models/catalogmodelsmodel.h"
#include "models/providersmodel.h"
#include "pages/modeldialog.h"
#include "pages/providerdialog.h"
#include "providers/connectiontest.h"
#include "providers/keystore.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace kb::gui {

namespace {

QTableView* makeView(QAbstractItemModel* model, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(Qt::UserRole);
    auto* view = new QTableView(parent);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return view;
}

int sourceRow(const QTableView* view) {
    const QModelIndex index =
        view->selectionModel() ? view->selectionModel()->currentIndex() : QModelIndex();
    if (!index.isValid())
        return -1;
    return static_cast<const QSortFilterProxyModel*>(view->model())->mapToSource(index).row();
}

QWidget* group(const QString& title, QTableView* view, const QList<QPushButton*>& buttons,
               QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()), box), 1);
    for (auto* b : buttons)
        bar->addWidget(b);
    layout->addLayout(bar);
    layout->addWidget(view, 1);
    return box;
}

} // namespace

ProvidersPage::ProvidersPage(QWidget* parent)
    : QWidget(parent)
    , m_providers(new ProvidersModel(this))
    , m_models(new CatalogModelsModel(this))
    , m_providerView(makeView(m_providers, this))
    , m_modelView(makeView(m_models, this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_status(new QLabel(this))
    , m_empty(new QLabel(this))
    , m_test(new QPushButton(tr("Test connection"), this))
    , m_connectionTest(new engine::ConnectionTest(this)) {
    m_providerView->setObjectName(QStringLiteral("providersView"));
    m_modelView->setObjectName(QStringLiteral("modelsView"));
    auto* addP = new QPushButton(tr("Add…"), this);
    auto* editP = new QPushButton(tr("Edit…"), this);
    auto* removeP = new QPushButton(tr("Remove"), this);
    auto* addM = new QPushButton(tr("Add…"), this);
    auto* editM = new QPushButton(tr("Edit…"), this);
    auto* removeM = new QPushButton(tr("Remove"), this);
    m_test->setToolTip(
        tr("List the provider's models and send its first model a one-token request"));

    m_splitter->addWidget(
        group(tr("Providers"), m_providerView, {addP, editP, removeP, m_test}, m_splitter));
    m_splitter->addWidget(group(tr("Models of the selected provider"), m_modelView,
                                {addM, editM, removeM}, m_splitter));
    m_splitter->setChildrenCollapsible(false);

    m_status->setObjectName(QStringLiteral("providersStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_empty->setText(
        tr("No providers yet. The demo provider is added by the first demo run; add an "
           "OpenAI-compatible or Anthropic provider with Add…"));
    m_empty->setWordWrap(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_empty);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(m_status);

    connect(addP, &QPushButton::clicked, this, &ProvidersPage::addProvider);
    connect(editP, &QPushButton::clicked, this, &ProvidersPage::editProvider);
    connect(removeP, &QPushButton::clicked, this, &ProvidersPage::removeProvider);
    connect(addM, &QPushButton::clicked, this, &ProvidersPage::addModel);
    connect(editM, &QPushButton::clicked, this, &ProvidersPage::editModel);
    connect(removeM, &QPushButton::clicked, this, &ProvidersPage::removeModel);
    connect(m_test, &QPushButton::clicked, this, &ProvidersPage::testConnection);
    connect(m_providerView, &QTableView::doubleClicked, this, &ProvidersPage::editProvider);
    connect(m_modelView, &QTableView::doubleClicked, this, &ProvidersPage::editModel);
    connect(m_providerView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ProvidersPage::providerSelectionChanged);
    connect(m_connectionTest, &engine::ConnectionTest::finished, this,
            &ProvidersPage::onTestFinished);
    setCatalog(nullptr);
}

ProvidersPage::~ProvidersPage() = default;

void ProvidersPage::setCatalog(CatalogPtr catalog) {
    const db::Id selected = selectedProvider();
    m_catalog = std::move(catalog);
    m_providers->setCatalog(m_catalog);
    m_models->setCatalog(m_catalog);
    m_empty->setVisible(!m_catalog || m_catalog->providers.empty());
    if (m_providers->rowCount() > 0)
        selectProvider(selected != 0 && m_providers->rowOfProvider(selected) >= 0
                           ? selected
                           : m_providers->providerIdAt(0));
    else
        m_models->setProviderId(-1);
}

db::Id ProvidersPage::selectedProvider() const {
    return m_providers->providerIdAt(sourceRow(m_providerView));
}

void ProvidersPage::selectProvider(db::Id providerId) {
    const int row = m_providers->rowOfProvider(providerId);
    if (row < 0)
        return;
    auto* proxy = static_cast<QSortFilterProxyModel*>(m_providerView->model());
    m_providerView->selectionModel()->setCurrentIndex(
        proxy->mapFromSource(m_providers->index(row, 0)),
        QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    providerSelectionChanged();
}

void ProvidersPage::providerSelectionChanged() {
    const db::Id id = selectedProvider();
    m_models->setProviderId(id == 0 ? -1 : id);
    const auto* p = m_catalog ? m_catalog->findProvider(id) : nullptr;
    m_test->setEnabled(p != nullptr);
}

QString ProvidersPage::statusText() const {
    return m_status->text();
}

void ProvidersPage::showStatus(const QString& text, bool error) {
    m_status->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
    m_status->setText(text);
}

bool ProvidersPage::hasStoredKey(const ProviderForm& form) const {
    return m_keys && form.provider.id != 0 && m_keys->readKey(form.keyName()).has_value();
}

bool ProvidersPage::openProviderDialog(const ProviderForm& form, ProviderForm* out) {
    ProviderDialog dialog(form, m_keys ? m_keys->describe() : tr("no key store"),
                          hasStoredKey(form), this);
    const bool ok =
        providerDialogHook ? providerDialogHook(dialog) : dialog.exec() == QDialog::Accepted;
    if (ok)
        *out = dialog.form();
    return ok;
}

QString ProvidersPage::saveProviderForm(const ProviderForm& form) {
    if (m_databasePath.isEmpty())
        return tr("Open a database first.");
    const bool remote = form.provider.kind == "openai" || form.provider.kind == "anthropic";
    if (remote && !form.apiKey.isEmpty() && !m_keys)
        return tr("There is no key store to keep the API key in.");
    db::Id id = 0;
    QString error = saveProvider(m_databasePath, form.provider, &id);
    if (!error.isEmpty())
        return error;
    if (remote && !form.apiKey.isEmpty()) {
        QString why;
        if (!m_keys->writeKey(form.keyName(), form.apiKey, &why))
            return tr("The provider was saved, but its key could not be stored in %1: %2")
                .arg(m_keys->describe(), why);
    }
    Q_EMIT catalogChanged();
    return {};
}

void ProvidersPage::addProvider() {
    ProviderForm form;
    form.provider.kind = "openai";
    ProviderForm result;
    if (!openProviderDialog(form, &result))
        return;
    const QString error = saveProviderForm(result);
    showStatus(error.isEmpty()
                   ? tr("Added provider '%1'.").arg(QString::fromStdString(result.provider.name))
                   : error,
               !error.isEmpty());
}

void ProvidersPage::editProvider() {
    const auto* p = m_catalog ? m_catalog->findProvider(selectedProvider()) : nullptr;
    if (!p) {
        showStatus(tr("Select a provider to edit."), true);
        return;
    }
    ProviderForm result;
    if (!openProviderDialog({*p, {}}, &result))
        return;
    const QString error = saveProviderForm(result);
    showStatus(error.isEmpty()
                   ? tr("Saved provider '%1'.").arg(QString::fromStdString(result.provider.name))
                   : error,
               !error.isEmpty());
}

void ProvidersPage::removeProvider() {
    const auto* p = m_catalog ? m_catalog->findProvider(selectedProvider()) : nullptr;
    if (!p) {
        showStatus(tr("Select a provider to remove."), true);
        return;
    }
    const QString name = QString::fromStdString(p->name);
    const QString error = gui::removeProvider(m_databasePath, p->id);
    showStatus(error.isEmpty() ? tr("Removed provider '%1'.").arg(name) : error, !error.isEmpty());
    if (error.isEmpty())
        Q_EMIT catalogChanged();
}

void ProvidersPage::addModel() {
    if (!m_catalog || m_catalog->providers.empty()) {
        showStatus(tr("Add a provider first."), true);
        return;
    }
    db::ModelRow m;
    m.providerId = selectedProvider();
    ModelDialog dialog(m, m_catalog->providers, this);
    if (!(modelDialogHook ? modelDialogHook(dialog) : dialog.exec() == QDialog::Accepted))
        return;
    const QString error = saveModel(m_databasePath, dialog.model());
    showStatus(error.isEmpty()
                   ? tr("Added model '%1'.").arg(QString::fromStdString(dialog.model().name))
                   : error,
               !error.isEmpty());
    if (error.isEmpty())
        Q_EMIT catalogChanged();
}

void ProvidersPage::editModel() {
    const db::Id id = m_models->modelIdAt(sourceRow(m_modelView));
    const auto* m = m_catalog ? m_catalog->findModel(id) : nullptr;
    if (!m) {
        showStatus(tr("Select a model to edit."), true);
        return;
    }
    ModelDialog dialog(*m, m_catalog->providers, this);
    if (!(modelDialogHook ? modelDialogHook(dialog) : dialog.exec() == QDialog::Accepted))
        return;
    const QString error = saveModel(m_databasePath, dialog.model());
    showStatus(error.isEmpty()
                   ? tr("Saved model '%1'.").arg(QString::fromStdString(dialog.model().name))
                   : error,
               !error.isEmpty());
    if (error.isEmpty())
        Q_EMIT catalogChanged();
}

void ProvidersPage::removeModel() {
    const db::Id id = m_models->modelIdAt(sourceRow(m_modelView));
    const auto* m = m_catalog ? m_catalog->findModel(id) : nullptr;
    if (!m) {
        showStatus(tr("Select a model to remove."), true);
        return;
    }
    const QString name = QString::fromStdString(m->name);
    const QString error = gui::removeModel(m_databasePath, id);
    showStatus(error.isEmpty() ? tr("Removed model '%1'.").arg(name) : error, !error.isEmpty());
    if (error.isEmpty())
        Q_EMIT catalogChanged();
}

void ProvidersPage::testConnection() {
    const auto* p = m_catalog ? m_catalog->findProvider(selectedProvider()) : nullptr;
    if (!p) {
        showStatus(tr("Select a provider to test."), true);
        return;
    }
    engine::ConnectionTestSpec spec;
    spec.kind = QString::fromStdString(p->kind);
    spec.baseUrl = QString::fromStdString(p->baseUrl);
    const ProviderForm form{*p, {}};
    if (m_keys) {
        QString why;
        const auto key = m_keys->readKey(form.keyName(), &why);
        if (!key && !why.isEmpty()) {
            showStatus(tr("Cannot read the key from %1: %2").arg(m_keys->describe(), why), true);
            return;
        }
        spec.apiKey = key.value_or(QString());
    }
    for (const auto& m : m_catalog->models) {
        if (m.providerId == p->id) {
            spec.model = QString::fromStdString(m.name);
            break;
        }
    }
    m_test->setEnabled(false);
    showStatus(tr("Testing '%1'…").arg(QString::fromStdString(p->name)), false);
    m_connectionTest->start(spec);
}

bool ProvidersPage::isTesting() const {
    return m_connectionTest->isRunning();
}

void ProvidersPage::onTestFinished(const engine::ConnectionTestResult& result) {
    m_test->setEnabled(true);
    QString text = result.message;
    if (!result.models.isEmpty()) {
        QStringList shown = result.models.mid(0, 12);
        text += QLatin1Char('\n') + tr("Models: %1%2")
                                        .arg(shown.join(QStringLiteral(", ")),
                                             result.models.size() > 12 ? tr(", …") : QString());
    }
    showStatus(text, !result.ok);
    Q_EMIT connectionTested(result.message, result.ok);
}

void ProvidersPage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("providers/splitter"), m_splitter->saveState());
}

void ProvidersPage::restoreState(const QSettings& settings) {
    m_splitter->restoreState(settings.value(QStringLiteral("providers/splitter")).toByteArray());
}

} // namespace kb::gui
