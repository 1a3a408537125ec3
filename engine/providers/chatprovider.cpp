#include "chatprovider.h"

#include "redaction.h"

#include <QElapsedTimer>
#include <QPointer>

namespace kb::engine {

struct ChatProvider::Pending {
    ChatRequest request;
    QPointer<HttpCall> call;
    QElapsedTimer timer;
    SseDecoder decoder;
    std::unique_ptr<StreamAggregator> aggregator;
    bool sawEvent = false;
    qint64 deltas = 0; // streamed text/reasoning pieces, about one token each
    double firstTokenMs = 0;
    QByteArray requestBody;
    QList<QByteArray> secrets;
    bool started = false;
};

namespace {

double elapsedMs(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

std::unique_ptr<ProviderProtocol> makeProtocol(const ProviderConfig& c) {
    if (c.kind == ProviderKind::Anthropic)
        return std::make_unique<AnthropicProtocol>(c.anthropic);
    return std::make_unique<OpenAiProtocol>(c.openAi);
}

} // namespace

ChatProvider::ChatProvider(ProviderConfig config, QObject* parent)
    : ChatClient(parent)
    , m_config(std::move(config))
    , m_protocol(makeProtocol(m_config))
    , m_transport(new HttpTransport(
          m_config.baseUrl, m_config.transport,
          RetryPolicy(m_config.transport.retry, m_config.clock, m_config.random), this))
    , m_limiter(m_config.maxConcurrent, m_config.tokenBudget) {}

ChatProvider::~ChatProvider() = default;

HttpRequestSpec ChatProvider::withExtraHeaders(HttpRequestSpec spec) const {
    for (const auto& h : m_config.extraHeaders)
        spec.headers.append(h);
    return spec;
}

quint64 ChatProvider::send(const ChatRequest& request) {
    const quint64 id = ++m_nextId;
    auto p = std::make_unique<Pending>();
    p->request = applyRequestOptions(request, m_config.requestDefaults,
                                     m_config.modelOptions.value(request.model));
    m_pending.emplace(id, std::move(p));
    m_limiter.submit(
        id, [this, id] { start(id); },
        [this, id](const QString& reason) {
            ProviderError e;
            e.message = QStringLiteral("%1: %2").arg(
                m_config.name.isEmpty() ? kind() : m_config.name, reason);
            failLater(id, e);
        });
    return id;
}

void ChatProvider::failLater(quint64 id, const ProviderError& error) {
    // Never emit from inside send(): the caller has not seen the id yet.
    QMetaObject::invokeMethod(
        this, [this, id, error] { fail(id, error); }, Qt::QueuedConnection);
}

void ChatProvider::start(quint64 id) {
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    Pending& p = *it->second;
    p.started = true;
    p.timer.start();
    const HttpRequestSpec spec =
        withExtraHeaders(m_protocol->chatRequest(p.request, m_config.apiKey));
    p.secrets = secretsOf(spec.headers);
    p.requestBody = redactSecrets(spec.body, p.secrets);
    if (p.request.stream)
        p.aggregator = m_protocol->newStreamAggregator();
    HttpCall* call = m_transport->start(spec);
    p.call = call;
    connect(call, &HttpCall::chunkReceived, this,
            [this, id](const QByteArray& b) { onChunk(id, b); });
    connect(call, &HttpCall::succeeded, this,
            [this, id](const HttpResult& r) { onSucceeded(id, r); });
    connect(call, &HttpCall::failed, this, [this, id](const ProviderError& e) { fail(id, e); });
    connect(call, &HttpCall::retryScheduled, this,
            [this, id](int next, qint64 delayMs, const ProviderError& cause) {
                Q_EMIT retrying(id, next, delayMs, cause);
            });
}

void ChatProvider::onChunk(quint64 id, const QByteArray& bytes) {
    auto it = m_pending.find(id);
    if (it == m_pending.end() || !it->second->aggregator)
        return;
    Pending& p = *it->second;
    for (const SseEvent& event : p.decoder.feed(bytes)) {
        p.sawEvent = true;
        const StreamStep step = p.aggregator->feed(event);
        const ProviderError err = p.aggregator->error();
        if (!err.message.isEmpty()) {
            if (p.call)
                p.call->abort(err); // comes back through failed
            return;
        }
        if (!step.text.isEmpty() || !step.reasoning.isEmpty()) {
            ++p.deltas;
            if (p.firstTokenMs == 0)
                p.firstTokenMs = elapsedMs(p.timer);
        }
        // A slot may cancel the request; look it up again after each signal.
        if (!step.reasoning.isEmpty())
            Q_EMIT reasoningDelta(id, redactSecrets(step.reasoning, p.secrets));
        if (m_pending.find(id) == m_pending.end())
            return;
        if (!step.text.isEmpty())
            Q_EMIT streamDelta(id, redactSecrets(step.text, p.secrets));
        if (m_pending.find(id) == m_pending.end())
            return;
    }
}

void ChatProvider::onSucceeded(quint64 id, const HttpResult& result) {
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    Pending& p = *it->second;
    ChatResponse response;
    ProviderError error;
    const bool streamed = p.aggregator && (p.sawEvent || !result.body.trimmed().startsWith('{'));
    if (streamed) {
        const QString cut = p.decoder.finish();
        if (!cut.isEmpty() || !p.aggregator->isComplete()) {
            error.message = QStringLiteral("stream ended before completion");
            error.transient = true;
            error.httpStatus = result.status;
            fail(id, error);
            return;
        }
        response = p.aggregator->result();
        response.timeToFirstTokenMs = p.firstTokenMs;
    } else if (!m_protocol->decodeChat(result.body, &response, &error)) {
        // A server that ignored "stream": true lands here too, and is decoded as a whole.
        error.httpStatus = result.status;
        fail(id, error);
        return;
    }
    response.attempts = result.attempts;
    response.raw = redactSecrets(result.body, p.secrets);
    complete(id, std::move(response));
}

void ChatProvider::complete(quint64 id, ChatResponse response) {
    auto node = m_pending.extract(id);
    if (node.empty())
        return;
    Pending& p = *node.mapped();
    response.latencyMs = elapsedMs(p.timer);
    response.requestBody = p.requestBody;
    response.costUsd = m_config.prices.cost(p.request.model, response.usage);
    m_totalUsage += response.usage;
    if (response.costUsd)
        m_totalCost += *response.costUsd;
    m_limiter.release(id, response.usage.total());

    if (m_tests.contains(id)) {
        const quint64 testId = m_tests.take(id);
        ConnectionReport report;
        report.models = m_testModels.take(testId);
        for (const auto& m : std::as_const(report.models))
            report.modelListed = report.modelListed || m.id == p.request.model;
        report.reply = response;
        Q_EMIT connectionTested(testId, report);
        return;
    }
    Q_EMIT finished(id, response);
}

void ChatProvider::fail(quint64 id, ProviderError error) {
    auto node = m_pending.extract(id);
    if (node.empty())
        return;
    Pending& p = *node.mapped();
    error.message = redactSecrets(error.message, p.secrets);
    if (p.aggregator && p.sawEvent) {
        const ChatResponse partial = p.aggregator->result();
        error.partialContent = redactSecrets(partial.content, p.secrets);
        error.partialUsage = partial.usage;
        // OpenAI-compatible servers report usage in the last chunk only: count what streamed.
        if (error.partialUsage.outputTokens == 0)
            error.partialUsage.outputTokens = p.deltas;
        // The tokens were spent even though the answer is lost.
        m_totalUsage += partial.usage;
    }
    if (error.httpStatus == 404 && m_config.kind == ProviderKind::OpenAiCompatible)
        error.message += missingV1Hint(m_config.baseUrl);
    if (p.started)
        m_limiter.release(id, 0);
    else
        m_limiter.cancel(id);
    if (m_tests.contains(id)) {
        const quint64 testId = m_tests.take(id);
        m_testModels.remove(testId);
        error.message = QStringLiteral("the test request failed: %1").arg(error.message);
        Q_EMIT failed(testId, error);
        return;
    }
    Q_EMIT failed(id, error);
}

void ChatProvider::cancel(quint64 id) {
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    ProviderError e;
    e.message = QStringLiteral("cancelled");
    if (it->second->call) {
        it->second->call->abort(e);
    } else {
        m_limiter.cancel(id); // now, so a slot freed before the failure is delivered skips it
        failLater(id, e);
    }
}

quint64 ChatProvider::listModels() {
    const quint64 id = ++m_nextId;
    HttpCall* call =
        m_transport->start(withExtraHeaders(m_protocol->modelsRequest(m_config.apiKey)));
    connect(call, &HttpCall::succeeded, this, [this, id](const HttpResult& r) {
        QList<ModelInfo> models;
        QString why;
        if (!m_protocol->decodeModels(r.body, &models, &why)) {
            ProviderError e;
            e.message = why;
            e.httpStatus = r.status;
            Q_EMIT failed(id, e);
            return;
        }
        Q_EMIT modelsListed(id, models);
    });
    connect(call, &HttpCall::failed, this, [this, id](const ProviderError& e) {
        ProviderError out = e;
        out.message = QStringLiteral("listing the models failed: %1").arg(e.message);
        Q_EMIT failed(id, out);
    });
    return id;
}

quint64 ChatProvider::testConnection(const QString& model) {
    const quint64 listId = listModels();
    const quint64 testId = listId; // the test answers under the listing's id
    auto* guard = new QObject(this);
    connect(this, &ChatProvider::modelsListed, guard,
            [this, guard, testId, model](quint64 id, const QList<ModelInfo>& models) {
                if (id != testId)
                    return;
                guard->deleteLater();
                ChatRequest r;
                r.model = model;
                r.maxTokens = 1;
                r.messages = {ChatMessage::user(QStringLiteral("Reply with the word ok."))};
                m_testModels.insert(testId, models);
                const quint64 chatId = send(r);
                m_tests.insert(chatId, testId);
            });
    connect(this, &ChatClient::failed, guard, [guard, testId](quint64 id, const ProviderError&) {
        if (id == testId)
            guard->deleteLater();
    });
    return testId;
}

} // namespace kb::engine
