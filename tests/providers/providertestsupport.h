#pragma once
// Shared by the network tests: a provider pointed at the fake server, a log capture, and the
// check that no key leaked into what gets written down.

#include "fakeproviderserver.h"
#include "providers/chatprovider.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMutex>
#include <QStringList>

namespace kb::test {

inline const QString kApiKey = QStringLiteral("sk-test-Zq8X1c9vSECRET0123456789");

inline engine::ProviderConfig configFor(const FakeProviderServer& server,
                                        engine::ProviderKind kind) {
    engine::ProviderConfig c;
    c.name = QStringLiteral("fake");
    c.kind = kind;
    c.baseUrl =
        kind == engine::ProviderKind::Anthropic ? server.url() : server.url(QStringLiteral("/v1"));
    c.apiKey = kApiKey;
    c.transport.timeoutMs = 10000;
    c.transport.retry.baseDelayMs = 20;
    c.transport.retry.maxDelayMs = 100;
    c.random = [] { return 0.0; };
    return c;
}

inline bool containsKey(const engine::ChatResponse& r) {
    return QJsonDocument(r.toJson()).toJson().contains(kApiKey.toUtf8()) ||
           r.raw.contains(kApiKey.toUtf8()) || r.requestBody.contains(kApiKey.toUtf8());
}

// Collects every log line of the process while it lives, with the provider category verbose.
class LogCapture {
public:
    LogCapture() {
        s_lines.clear();
        QLoggingCategory::setFilterRules(QStringLiteral("kb.providers.debug=true"));
        m_previous = qInstallMessageHandler(&LogCapture::handler);
    }
    ~LogCapture() { qInstallMessageHandler(m_previous); }
    QString all() const { return s_lines.join(QLatin1Char('\n')); }

private:
    static void handler(QtMsgType, const QMessageLogContext&, const QString& msg) {
        s_lines.append(msg);
    }
    static inline QStringList s_lines;
    QtMessageHandler m_previous = nullptr;
};

} // namespace kb::test
