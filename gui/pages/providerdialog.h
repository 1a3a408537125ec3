#pragma once
// Adds or edits a provider: name, kind, base URL, limits, and the API key, which goes to the
// key store (never to the database).

#include "db/records.h"

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QLabel;

namespace kb::gui {
class ProviderRequestSettings;
}

namespace kb::gui {

struct ProviderForm {
    db::ProviderRow provider; // settings_json holds key_name and the limits
    QString apiKey;           // entered in the dialog; empty = keep the stored key
    // The key store entry: settings key_name (else the provider's name) bound to the base
    // URL's host, so the key is sent there only (engine::hostBoundKeyName).
    QString keyName() const;
};

class ProviderDialog : public QDialog {
    Q_OBJECT
public:
    // keyStoreText: where the key will be stored, shown under the key field.
    ProviderDialog(const ProviderForm& form, const QString& keyStoreText, bool hasStoredKey,
                   QWidget* parent = nullptr);
    ProviderForm form() const;
    QString validationError() const; // empty when the form can be saved

    QLineEdit* nameEdit() const { return m_name; }
    QComboBox* kindBox() const { return m_kind; }
    QLineEdit* baseUrlEdit() const { return m_baseUrl; }
    QLineEdit* keyEdit() const { return m_key; }
    QSpinBox* concurrencyBox() const { return m_concurrent; }
    ProviderRequestSettings* requestSettings() const { return m_request; }

    void accept() override;

private:
    void kindChanged();

    ProviderForm m_original;
    QLineEdit* m_name;
    QComboBox* m_kind;
    QLineEdit* m_baseUrl;
    QLineEdit* m_keyName;
    QLineEdit* m_key;
    QSpinBox* m_concurrent;
    QDoubleSpinBox* m_budget;
    QSpinBox* m_timeout;
    ProviderRequestSettings* m_request;
    QLabel* m_error;
};

} // namespace kb::gui
