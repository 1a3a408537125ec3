#include "providerdialog.h"

#include "providerrequestsettings.h"
#include "providers/keystore.h"
#include "providers/requestoptions.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QUrl>

namespace kb::gui {

namespace {

QJsonObject settingsOf(const db::ProviderRow& p) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(p.settingsJson)).object();
}

} // namespace

QString ProviderForm::keyName() const {
    const QString kind = QString::fromStdString(provider.kind);
    return engine::hostBoundKeyName(
        settingsOf(provider)
            .value(QStringLiteral("key_name"))
            .toString(QString::fromStdString(provider.name)),
        engine::normalizedBaseUrl(kind, QUrl(QString::fromStdString(provider.baseUrl))));
}

ProviderDialog::ProviderDialog(const ProviderForm& form, const QString& keyStoreText,
                               bool hasStoredKey, QWidget* parent)
    : QDialog(parent)
    , m_original(form)
    , m_name(new QLineEdit(this))
    , m_kind(new QComboBox(this))
    , m_baseUrl(new QLineEdit(this))
    , m_keyName(new QLineEdit(this))
    , m_key(new QLineEdit(this))
    , m_concurrent(new QSpinBox(this))
    , m_budget(new QDoubleSpinBox(this))
    , m_timeout(new QSpinBox(this))
    , m_request(nullptr)
    , m_error(new QLabel(this)) {
    setWindowTitle(form.provider.id == 0 ? tr("Add provider") : tr("Edit provider"));
    const QJsonObject s = settingsOf(form.provider);
    m_name->setText(QString::fromStdString(form.provider.name));
    for (const char* kind : {"openai", "anthropic", "demo", "replay"})
        m_kind->addItem(QString::fromLatin1(kind));
    m_kind->setItemData(0, tr("OpenAI-compatible API (OpenAI, vLLM, OpenRouter, …)"),
                        Qt::ToolTipRole);
    m_kind->setItemData(1, tr("Anthropic Messages API"), Qt::ToolTipRole);
    m_kind->setItemData(2, tr("Offline demo candidates"), Qt::ToolTipRole);
    m_kind->setItemData(3, tr("Replays a recorded transcript"), Qt::ToolTipRole);
    const int kindRow = m_kind->findText(QString::fromStdString(form.provider.kind));
    m_kind->setCurrentIndex(kindRow < 0 ? 0 : kindRow);
    m_baseUrl->setText(QString::fromStdString(form.provider.baseUrl));
    m_baseUrl->setPlaceholderText(QStringLiteral("https://api.openai.com/v1"));
    m_keyName->setText(s.value(QStringLiteral("key_name")).toString());
    m_keyName->setPlaceholderText(tr("the provider's name"));
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setPlaceholderText(hasStoredKey ? tr("stored — leave empty to keep it")
                                           : tr("not stored yet"));
    m_concurrent->setRange(1, 256);
    m_concurrent->setValue(s.value(QStringLiteral("max_concurrent")).toInt(4));
    m_budget->setRange(0, 1e12);
    m_budget->setDecimals(0);
    m_budget->setSpecialValueText(tr("no limit"));
    m_budget->setValue(s.value(QStringLiteral("token_budget")).toDouble(0));
    m_timeout->setRange(1, 3600);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setValue(
        static_cast<int>(s.value(QStringLiteral("timeout_ms")).toDouble(600000) / 1000));

    auto* keyNote =
        new QLabel(tr("Keys are kept in %1, never in the database.").arg(keyStoreText), this);
    keyNote->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->setWordWrap(true);
    m_error->hide();

    auto* layout = new QFormLayout(this);
    layout->addRow(tr("&Name:"), m_name);
    layout->addRow(tr("&Kind:"), m_kind);
    layout->addRow(tr("&Base URL:"), m_baseUrl);
    layout->addRow(tr("API &key:"), m_key);
    layout->addRow(QString(), keyNote);
    layout->addRow(tr("Key &name:"), m_keyName);
    layout->addRow(tr("Requests at &once:"), m_concurrent);
    layout->addRow(tr("Token &budget:"), m_budget);
    layout->addRow(tr("&Timeout:"), m_timeout);
    m_request = new ProviderRequestSettings(layout, s, false, this);
    layout->addRow(m_error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    layout->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &ProviderDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &ProviderDialog::kindChanged);
    kindChanged();
    setMinimumWidth(460);
}

void ProviderDialog::kindChanged() {
    const bool remote = m_kind->currentText() == QLatin1String("openai") ||
                        m_kind->currentText() == QLatin1String("anthropic");
    for (QWidget* w : {static_cast<QWidget*>(m_baseUrl), static_cast<QWidget*>(m_key),
                       static_cast<QWidget*>(m_keyName)})
        w->setEnabled(remote);
    if (m_kind->currentText() == QLatin1String("anthropic") && m_baseUrl->text().isEmpty())
        m_baseUrl->setText(QStringLiteral("https://api.anthropic.com"));
}

ProviderForm ProviderDialog::form() const {
    ProviderForm f = m_original;
    f.provider.name = m_name->text().trimmed().toStdString();
    f.provider.kind = m_kind->currentText().toStdString();
    f.provider.baseUrl = m_baseUrl->text().trimmed().toStdString();
    QJsonObject s = settingsOf(m_original.provider);
    if (m_keyName->text().trimmed().isEmpty())
        s.remove(QStringLiteral("key_name"));
    else
        s.insert(QStringLiteral("key_name"), m_keyName->text().trimmed());
    s.insert(QStringLiteral("max_concurrent"), m_concurrent->value());
    if (m_budget->value() > 0)
        s.insert(QStringLiteral("token_budget"), m_budget->value());
    else
        s.remove(QStringLiteral("token_budget"));
    s.insert(QStringLiteral("timeout_ms"), m_timeout->value() * 1000);
    QString ignored; // validationError() reports it
    s = m_request->apply(s, m_kind->currentText(), &ignored);
    if (f.provider.kind == "openai" || f.provider.kind == "anthropic")
        f.provider.baseUrl =
            engine::normalizedBaseUrl(m_kind->currentText(), QUrl(m_baseUrl->text().trimmed()))
                .toString()
                .toStdString();
    f.provider.settingsJson = QJsonDocument(s).toJson(QJsonDocument::Compact).toStdString();
    f.apiKey = m_key->text();
    return f;
}

QString ProviderDialog::validationError() const {
    const ProviderForm f = form();
    if (f.provider.name.empty())
        return tr("Give the provider a name.");
    if (f.provider.kind == "openai" || f.provider.kind == "anthropic") {
        const QUrl url(QString::fromStdString(f.provider.baseUrl));
        if (!url.isValid() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
            url.host().isEmpty())
            return tr("The base URL must be an http(s) URL, e.g. https://api.openai.com/v1.");
        QString error;
        m_request->apply(settingsOf(m_original.provider), m_kind->currentText(), &error);
        if (!error.isEmpty())
            return error;
    }
    return {};
}

void ProviderDialog::accept() {
    const QString error = validationError();
    if (!error.isEmpty()) {
        m_error->setText(error);
        m_error->show();
        return;
    }
    QDialog::accept();
}

} // namespace kb::gui
