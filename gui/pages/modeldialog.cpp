#include "modeldialog.h"

#include "providerrequestsettings.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

namespace kb::gui {

ModelDialog::ModelDialog(const db::ModelRow& model, const std::vector<db::ProviderRow>& providers,
                         QWidget* parent)
    : QDialog(parent)
    , m_original(model)
    , m_provider(new QComboBox(this))
    , m_name(new QLineEdit(this))
    , m_label(new QLineEdit(this))
    , m_priced(new QCheckBox(tr("Known prices"), this))
    , m_priceIn(new QDoubleSpinBox(this))
    , m_priceOut(new QDoubleSpinBox(this))
    , m_maxOutput(new QSpinBox(this))
    , m_request(nullptr)
    , m_error(new QLabel(this)) {
    setWindowTitle(model.id == 0 ? tr("Add model") : tr("Edit model"));
    for (const auto& p : providers) {
        m_provider->addItem(QString::fromStdString(p.name), qint64(p.id));
        m_kinds.insert(qint64(p.id), QString::fromStdString(p.kind));
    }
    const int row = m_provider->findData(qint64(model.providerId));
    m_provider->setCurrentIndex(row < 0 ? 0 : row);
    m_name->setText(QString::fromStdString(model.name));
    m_name->setPlaceholderText(tr("the provider's model id, e.g. gpt-4.1"));
    m_label->setText(QString::fromStdString(model.label));
    m_label->setPlaceholderText(tr("optional display name"));
    m_priced->setChecked(model.priceInPerMTok || model.priceOutPerMTok);
    for (auto* box : {m_priceIn, m_priceOut}) {
        box->setRange(0, 10000);
        box->setDecimals(3);
        box->setPrefix(QStringLiteral("$"));
        box->setSuffix(tr(" per Mtok"));
        box->setEnabled(m_priced->isChecked());
        connect(m_priced, &QCheckBox::toggled, box, &QWidget::setEnabled);
    }
    m_priceIn->setValue(model.priceInPerMTok.value_or(0));
    m_priceOut->setValue(model.priceOutPerMTok.value_or(0));
    const QJsonObject s =
        QJsonDocument::fromJson(QByteArray::fromStdString(model.settingsJson)).object();
    m_maxOutput->setRange(0, 1000000);
    m_maxOutput->setSpecialValueText(tr("provider default"));
    m_maxOutput->setValue(s.value(QStringLiteral("max_output_tokens")).toInt(0));
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->hide();

    auto* layout = new QFormLayout(this);
    layout->addRow(tr("&Provider:"), m_provider);
    layout->addRow(tr("&Model id:"), m_name);
    layout->addRow(tr("&Label:"), m_label);
    layout->addRow(QString(), m_priced);
    layout->addRow(tr("&Input price:"), m_priceIn);
    layout->addRow(tr("&Output price:"), m_priceOut);
    layout->addRow(tr("Max output &tokens:"), m_maxOutput);
    m_request = new ProviderRequestSettings(layout, s, true, this);
    layout->addRow(m_error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    layout->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &ModelDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    setMinimumWidth(420);
}

db::ModelRow ModelDialog::model() const {
    db::ModelRow m = m_original;
    m.providerId = m_provider->currentData().toLongLong();
    m.name = m_name->text().trimmed().toStdString();
    m.label = m_label->text().trimmed().toStdString();
    if (m_priced->isChecked()) {
        m.priceInPerMTok = m_priceIn->value();
        m.priceOutPerMTok = m_priceOut->value();
    } else {
        m.priceInPerMTok.reset();
        m.priceOutPerMTok.reset();
    }
    QJsonObject s =
        QJsonDocument::fromJson(QByteArray::fromStdString(m_original.settingsJson)).object();
    if (m_maxOutput->value() > 0)
        s.insert(QStringLiteral("max_output_tokens"), m_maxOutput->value());
    else
        s.remove(QStringLiteral("max_output_tokens"));
    QString ignored; // validationError() reports it
    s = m_request->apply(s, m_kinds.value(m.providerId), &ignored);
    m.settingsJson = QJsonDocument(s).toJson(QJsonDocument::Compact).toStdString();
    return m;
}

QString ModelDialog::validationError() const {
    if (m_provider->count() == 0)
        return tr("Add a provider first.");
    if (m_name->text().trimmed().isEmpty())
        return tr("Give the model its provider's id.");
    QString error;
    m_request->apply(
        QJsonDocument::fromJson(QByteArray::fromStdString(m_original.settingsJson)).object(),
        m_kinds.value(m_provider->currentData().toLongLong()), &error);
    return error;
}

void ModelDialog::accept() {
    const QString error = validationError();
    if (!error.isEmpty()) {
        m_error->setText(error);
        m_error->show();
        return;
    }
    QDialog::accept();
}

} // namespace kb::gui
