#include "providerrequestsettings.h"

#include "providers/requestoptions.h"

#include <QComboBox>
#include <QFormLayout>
#include <QJsonDocument>
#include <QLineEdit>
#include <QSpinBox>

namespace kb::gui {
namespace {
QString compact(const QJsonObject& o) {
    return o.isEmpty() ? QString()
                       : QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}
} // namespace

ProviderRequestSettings::ProviderRequestSettings(QFormLayout* layout, const QJsonObject& s,
                                                 bool forModel, QWidget* parent)
    : QObject(parent)
    , m_forModel(forModel)
    , m_tokenField(new QComboBox(parent))
    , m_extraBody(new QLineEdit(parent))
    , m_temperature(new QLineEdit(parent))
    , m_stream(new QComboBox(parent)) {
    m_tokenField->addItem(forModel ? tr("the provider's") : tr("max_tokens (default)"), QString());
    m_tokenField->addItem(QStringLiteral("max_tokens"), QStringLiteral("max_tokens"));
    m_tokenField->addItem(tr("max_completion_tokens (OpenAI reasoning models)"),
                          QStringLiteral("max_completion_tokens"));
    const int field = m_tokenField->findData(s.value(QStringLiteral("token_field")).toString());
    m_tokenField->setCurrentIndex(field < 0 ? 0 : field);
    QJsonObject body = s.value(QStringLiteral("extra_body")).toObject();
    for (const char* k : {"top_p", "seed"})
        if (s.contains(QString::fromLatin1(k)))
            body.insert(QString::fromLatin1(k), s.value(QString::fromLatin1(k)));
    m_extraBody->setText(compact(body));
    m_extraBody->setPlaceholderText(
        QStringLiteral("{\"reasoning_effort\":\"high\"}  "
                       "{\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":8192}}"));
    if (s.value(QStringLiteral("temperature")).isDouble())
        m_temperature->setText(QString::number(s.value(QStringLiteral("temperature")).toDouble()));
    m_temperature->setPlaceholderText(tr("the run's, else the provider's default"));
    m_stream->addItem(tr("the run's setting"), QString());
    m_stream->addItem(tr("on"), QStringLiteral("on"));
    m_stream->addItem(tr("off"), QStringLiteral("off"));
    if (s.value(QStringLiteral("stream")).isBool())
        m_stream->setCurrentIndex(s.value(QStringLiteral("stream")).toBool() ? 1 : 2);
    layout->addRow(tr("Token &limit field:"), m_tokenField);
    layout->addRow(tr("E&xtra body (JSON):"), m_extraBody);
    layout->addRow(tr("T&emperature:"), m_temperature);
    layout->addRow(tr("&Streaming:"), m_stream);
    if (forModel)
        return;
    m_extraHeaders = new QLineEdit(parent);
    m_extraHeaders->setText(compact(s.value(QStringLiteral("extra_headers")).toObject()));
    m_extraHeaders->setPlaceholderText(
        QStringLiteral("{\"anthropic-beta\":\"...\"}  (keys go in the key field)"));
    m_retries = new QSpinBox(parent);
    m_retries->setRange(0, 19);
    m_retries->setValue(s.value(QStringLiteral("max_attempts")).toInt(4) - 1);
    layout->addRow(tr("Extra &headers (JSON):"), m_extraHeaders);
    layout->addRow(tr("&Retries:"), m_retries);
}

QJsonObject ProviderRequestSettings::apply(QJsonObject s, const QString& kind,
                                           QString* error) const {
    QJsonObject out = s;
    auto setOrRemove = [&out](const QString& key, const QJsonValue& v, bool set) {
        if (set)
            out.insert(key, v);
        else
            out.remove(key);
    };
    const QString field = m_tokenField->currentData().toString();
    setOrRemove(QStringLiteral("token_field"), field, !field.isEmpty());
    out.remove(QStringLiteral("top_p"));
    out.remove(QStringLiteral("seed"));
    if (m_extraBody->text().trimmed().isEmpty()) {
        out.remove(QStringLiteral("extra_body"));
    } else {
        const auto body =
            engine::parseJsonObjectArgument(m_extraBody->text(), tr("The extra body"), error);
        if (!body)
            return s;
        out.insert(QStringLiteral("extra_body"), *body);
    }
    const QString t = m_temperature->text().trimmed();
    bool ok = true;
    const double temperature = t.toDouble(&ok);
    if (!t.isEmpty() && !ok) {
        *error = tr("The temperature must be a number.");
        return s;
    }
    setOrRemove(QStringLiteral("temperature"), temperature, !t.isEmpty());
    const QString stream = m_stream->currentData().toString();
    setOrRemove(QStringLiteral("stream"), stream == QLatin1String("on"), !stream.isEmpty());
    if (!m_forModel) {
        if (m_extraHeaders->text().trimmed().isEmpty()) {
            out.remove(QStringLiteral("extra_headers"));
        } else {
            const auto headers = engine::parseJsonObjectArgument(m_extraHeaders->text(),
                                                                 tr("The extra headers"), error);
            if (!headers)
                return s;
            out.insert(QStringLiteral("extra_headers"), *headers);
        }
        out.insert(QStringLiteral("max_attempts"), m_retries->value() + 1);
    }
    if (kind == QLatin1String("openai") || kind == QLatin1String("anthropic")) {
        const QString bad = engine::checkRequestSettings(kind, out);
        if (!bad.isEmpty()) {
            *error = bad.left(1).toUpper() + bad.mid(1) + QLatin1Char('.');
            return s;
        }
    }
    return out;
}

} // namespace kb::gui
