#pragma once
// Adds or edits a model: its provider, name, label, prices per million tokens and limits.

#include "db/records.h"

#include <QDialog>
#include <QHash>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace kb::gui {

class ProviderRequestSettings;

class ModelDialog : public QDialog {
    Q_OBJECT
public:
    ModelDialog(const db::ModelRow& model, const std::vector<db::ProviderRow>& providers,
                QWidget* parent = nullptr);
    db::ModelRow model() const;

    QLineEdit* nameEdit() const { return m_name; }
    QDoubleSpinBox* priceInBox() const { return m_priceIn; }
    QDoubleSpinBox* priceOutBox() const { return m_priceOut; }
    QSpinBox* maxOutputBox() const { return m_maxOutput; }
    ProviderRequestSettings* requestSettings() const { return m_request; }
    // Why the form cannot be saved; empty when it can.
    QString validationError() const;

    void accept() override;

private:
    db::ModelRow m_original;
    QComboBox* m_provider;
    QLineEdit* m_name;
    QLineEdit* m_label;
    QCheckBox* m_priced;
    QDoubleSpinBox* m_priceIn;
    QDoubleSpinBox* m_priceOut;
    QSpinBox* m_maxOutput;
    ProviderRequestSettings* m_request;
    QHash<qint64, QString> m_kinds; // provider id -> kind
    QLabel* m_error;
};

} // namespace kb::gui
