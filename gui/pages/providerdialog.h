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

struct ProviderForm {
    db::ProviderRow provider; // settings_json holds key_name and the limits
    QString apiKey;           // entered in the dialog; empty = keep the stored key
    QString keyName() const;  // settings key_name, else the provider's name
};

class ProviderDialog : public QDialog {
    Q_OBJECT
public:
    // keyStoreText: where the key will be stored, shown under the key field.
    ProviderDialog(const ProviderForm& form, const QString& keyStoreText, bool hasStoredKey, QWidget* parent = nullptr);
    ProviderForm form() const;
    QString validationError() const; // empty when the form can be saved

    QLineEdit* nameEdit() const { return m_name; }
    QComboBox* kindBox() const { return m_kind; }
    QLineEdit* baseUrlEdit() const { return m_baseUrl; }
    QLineEdit* keyEdit() const { return m_key; }
    QSpinBox* concurrencyBox() const { return m_concurrent; }

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
    QLabel* m_error;
};

} // namespace kb::gui
