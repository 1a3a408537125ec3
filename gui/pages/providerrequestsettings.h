#pragma once
// The request settings of a provider or a model, as fields of its dialog: token-limit field,
// extra body and (providers) headers as JSON, temperature, streaming, (providers) retries.
// Checked with the engine's own checks (requestoptions.h) before the dialog saves.

#include <QJsonObject>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace kb::gui {

class ProviderRequestSettings : public QObject {
    Q_OBJECT
public:
    // Adds its rows to `layout`; forModel leaves out headers and retries (a provider's).
    ProviderRequestSettings(QFormLayout* layout, const QJsonObject& settings, bool forModel,
                            QWidget* parent);
    // The settings with these fields applied; *error set (and the settings unchanged) when a
    // field is not acceptable for a provider of `kind`.
    QJsonObject apply(QJsonObject settings, const QString& kind, QString* error) const;

    QComboBox* tokenFieldBox() const { return m_tokenField; }
    QLineEdit* extraBodyEdit() const { return m_extraBody; }
    QLineEdit* extraHeadersEdit() const { return m_extraHeaders; }
    QLineEdit* temperatureEdit() const { return m_temperature; }
    QComboBox* streamBox() const { return m_stream; }

private:
    bool m_forModel;
    QComboBox* m_tokenField;
    QLineEdit* m_extraBody;
    QLineEdit* m_extraHeaders = nullptr;
    QLineEdit* m_temperature;
    QComboBox* m_stream;
    QSpinBox* m_retries = nullptr;
};

} // namespace kb::gui
