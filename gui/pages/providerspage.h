#pragma once
// Providers & models: add, edit and remove providers (kind, base URL, limits; the API key goes
// to the key store) and their models (prices, limits), and test a provider's connection.

#include "data/catalog.h"

#include <QWidget>
#include <functional>

class QLabel;
class QPushButton;
class QSettings;
class QSplitter;
class QTableView;

namespace kb::engine {
class ConnectionTest;
struct ConnectionTestResult;
class KeyStore;
} // namespace kb::engine

namespace kb::gui {

class CatalogModelsModel;
class ProviderDialog;
class ModelDialog;
class ProvidersModel;
struct ProviderForm;

class ProvidersPage : public QWidget {
    Q_OBJECT
public:
    explicit ProvidersPage(QWidget* parent = nullptr);
    ~ProvidersPage() override;

    void setDatabasePath(const QString& path) { m_databasePath = path; }
    void setCatalog(CatalogPtr catalog);
    // Where API keys go; not owned, must outlive the page.
    void setKeyStore(engine::KeyStore* keys) { m_keys = keys; }

    ProvidersModel* providersModel() const { return m_providers; }
    CatalogModelsModel* modelsModel() const { return m_models; }
    db::Id selectedProvider() const;
    void selectProvider(db::Id providerId);
    QString statusText() const;

    // What the dialogs' Save does, without the dialogs: the provider row to the database, a
    // newly entered key to the key store. Returns an empty string or a readable error.
    QString saveProviderForm(const ProviderForm& form);

    // Starts the connection test of the selected provider (its first model, when it has one).
    void testConnection();
    bool isTesting() const;

    // Tests open dialogs through these hooks instead of exec() (nullptr = exec()).
    std::function<bool(ProviderDialog&)> providerDialogHook;
    std::function<bool(ModelDialog&)> modelDialogHook;

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

Q_SIGNALS:
    void catalogChanged(); // a write succeeded: the owner reloads the catalog
    void connectionTested(const QString& message, bool ok);

public Q_SLOTS:
    void addProvider();
    void editProvider();
    void removeProvider();
    void addModel();
    void editModel();
    void removeModel();

private:
    void providerSelectionChanged();
    void showStatus(const QString& text, bool error);
    void onTestFinished(const engine::ConnectionTestResult& result);
    bool openProviderDialog(const ProviderForm& form, ProviderForm* out);
    bool hasStoredKey(const ProviderForm& form) const;

    QString m_databasePath;
    CatalogPtr m_catalog;
    engine::KeyStore* m_keys = nullptr;
    ProvidersModel* m_providers;
    CatalogModelsModel* m_models;
    QTableView* m_providerView;
    QTableView* m_modelView;
    QSplitter* m_splitter;
    QLabel* m_status;
    QLabel* m_empty;
    QPushButton* m_test;
    engine::ConnectionTest* m_connectionTest;
};

} // namespace kb::gui
