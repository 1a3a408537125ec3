#include "agentsession.h"

#include "agenttools.h"
#include "commandrunner.h"
#include "core/hashing.h"
#include "feedback.h"
#include "providers/keystore.h"
#include "providers/redaction.h"
#include "turnrecord.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace kb::engine {
namespace {
qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}
} // namespace

AgentSession::AgentSession(GenerationContext context, ChatClient* client, QObject* parent)
    : GenerationSession(std::move(context), parent)
    , m_workspace(m_ctx.workDir + QStringLiteral("/workspace"))
    , m_exchange(new ChatExchange(client, m_ctx.settings, this))
    , m_harness(new HarnessTool(m_ctx, m_workspace.root(), this))
    , m_commands(new CommandRunner(
          m_workspace.root(), m_ctx.settings.commandTimeoutSeconds,
          {QFileInfo(FileKeyStore::defaultPath()).absolutePath(), QDir::homePath()}, this,
          m_ctx.eval.device == QLatin1String("cuda")))
    , m_tools(agentToolDefinitions()) {
    connect(m_exchange, &ChatExchange::answered, this, &AgentSession::onAnswered);
    connect(m_exchange, &ChatExchange::callFailed, this, &AgentSession::onCallFailed);
    connect(m_harness, &HarnessTool::finished, this, &AgentSession::onHarnessResult);
    connect(m_commands, &CommandRunner::finished, this, [this](const ToolOutput& out) {
        toolDone(out, static_cast<double>(nowMs() - m_toolStartMs) / 1000.0);
    });
}

void AgentSession::start() {
    if (!m_workspace.write(QStringLiteral("model.py"), m_ctx.taskSource.toUtf8())) {
        emitNoCandidateLater(
            QStringLiteral("cannot create the agent's workspace under %1").arg(m_workspace.root()));
        return;
    }
    m_messages = {ChatMessage::system(agentSystemPrompt(m_ctx)),
                  ChatMessage::user(agentTaskPrompt(m_ctx))};
    ask();
}

int AgentSession::applyContextBudget(QList<ChatMessage>& messages, qint64 budgetChars,
                                     int keepRecent) {
    auto total = [&messages] {
        qint64 n = 0;
        for (const auto& m : std::as_const(messages)) {
            n += m.content.size() + m.reasoning.size();
            for (const auto& c : m.toolCalls)
                n += c.argumentsJson.size();
        }
        return n;
    };
    int shortened = 0;
    const qsizetype protectedFrom = std::max<qsizetype>(0, messages.size() - keepRecent);
    for (qsizetype i = 0; i < protectedFrom && total() > budgetChars; ++i) {
        ChatMessage& m = messages[i];
        if (m.role != ChatRole::Tool || m.content.size() <= 200)
            continue;
        m.content =
            QStringLiteral("[older tool output removed to fit the context budget: %1 characters]")
                .arg(m.content.size());
        ++shortened;
    }
    // Then the long arguments of old tool calls (whole files written): the call stays valid
    // JSON with its short fields, the long strings are replaced by a note.
    for (qsizetype i = 0; i < protectedFrom && total() > budgetChars; ++i) {
        for (ToolCall& c : messages[i].toolCalls) {
            if (c.argumentsJson.size() <= 1000)
                continue;
            QJsonObject args = QJsonDocument::fromJson(c.argumentsJson.toUtf8()).object();
            for (auto it = args.begin(); it != args.end(); ++it) {
                if (it.value().isString() && it.value().toString().size() > 200)
                    it.value() =
                        QStringLiteral("[removed to fit the context budget: %1 characters]")
                            .arg(it.value().toString().size());
            }
            c.argumentsJson = QString::fromUtf8(QJsonDocument(args).toJson(QJsonDocument::Compact));
            ++shortened;
        }
    }
    return shortened;
}

void AgentSession::ask() {
    if (m_calls >= m_ctx.settings.maxTurns) {
        finish(QStringLiteral("the turn budget (%1) is spent").arg(m_ctx.settings.maxTurns));
        return;
    }
    ++m_calls;
    const int cut = applyContextBudget(m_messages, m_ctx.settings.contextBudgetChars);
    if (cut > 0)
        log(QStringLiteral("attempt %1: %2 old tool output(s) shortened to fit the context budget")
                .arg(m_ctx.attemptId)
                .arg(cut));
    ChatRequest r;
    r.model = m_ctx.model;
    r.messages = m_messages;
    r.tools = m_tools;
    r.maxTokens = m_ctx.settings.maxTokens;
    r.temperature = m_ctx.settings.temperature;
    r.stream = m_ctx.settings.stream;
    m_exchange->send(r);
}

void AgentSession::onCallFailed(const ChatRequest& sent, const ProviderError& error,
                                bool willRetry) {
    TurnContext tc{m_ctx.attemptId, takeTurnIndex(),
                   m_calls == 1 ? QStringLiteral("generation") : QStringLiteral("tool"),
                   m_ctx.secrets};
    store(turnFromError(tc, sent, error));
    if (willRetry)
        return;
    // A model that already wrote a verified solution keeps it; otherwise the attempt has none.
    const QString what = redactSecrets(describeProviderError(error), m_ctx.secrets);
    if (m_best) {
        finish(QStringLiteral("provider error: %1").arg(what));
        return;
    }
    Q_EMIT providerFailed(what, error.httpStatus);
}

void AgentSession::onAnswered(const ChatRequest& sent, const ChatResponse& response) {
    TurnContext tc{m_ctx.attemptId, takeTurnIndex(),
                   m_calls == 1 ? QStringLiteral("generation") : QStringLiteral("tool"),
                   m_ctx.secrets};
    m_pendingTurn = turnFromResponse(tc, sent, response);
    m_messages.append(ChatMessage::fromResponse(response));
    if (response.stopReason == StopReason::Refusal ||
        response.stopReason == StopReason::ContentFilter) {
        storePendingTurn();
        const QString why =
            response.refusal.isEmpty() ? response.content.trimmed() : response.refusal;
        Q_EMIT noCandidate(QStringLiteral("the model refused: %1").arg(why.left(500)), true);
        return;
    }
    if (response.toolCalls.isEmpty()) {
        storePendingTurn();
        finish(QStringLiteral("the model ended its turn"));
        return;
    }
    m_pendingCalls = response.toolCalls;
    m_callResults = QJsonArray();
    m_nextCall = 0;
    runNextTool();
}

void AgentSession::runNextTool() {
    if (m_nextCall >= m_pendingCalls.size()) {
        storePendingTurn();
        if (m_targetReached) {
            finish(QStringLiteral("the target speedup was reached"));
            return;
        }
        ask();
        return;
    }
    const ToolCall& call = m_pendingCalls.at(m_nextCall);
    m_toolStartMs = nowMs();
    QString why;
    const QJsonObject args = call.arguments(&why);
    if (!why.isEmpty()) {
        toolDone({QStringLiteral("the arguments are not a valid JSON object: %1").arg(why), true},
                 0);
        return;
    }
    const QString& name = call.name;
    ToolOutput out;
    if (name == QLatin1String("list_files"))
        out = m_workspace.listFiles(args);
    else if (name == QLatin1String("read_file"))
        out = m_workspace.readFile(args);
    else if (name == QLatin1String("write_file"))
        out = m_workspace.writeFile(args);
    else if (name == QLatin1String("edit_file"))
        out = m_workspace.editFile(args);
    else if (name == QLatin1String("grep"))
        out = m_workspace.grep(args);
    else if (name == QLatin1String("run_command")) {
        m_commands->run(args.value(QStringLiteral("command")).toString());
        return;
    } else if (name == QLatin1String("build") || name == QLatin1String("verify") ||
               name == QLatin1String("benchmark") || name == QLatin1String("profile")) {
        m_harness->run(name == QLatin1String("build")       ? HarnessToolKind::Build
                       : name == QLatin1String("verify")    ? HarnessToolKind::Verify
                       : name == QLatin1String("benchmark") ? HarnessToolKind::Benchmark
                                                            : HarnessToolKind::Profile);
        return;
    } else {
        out = {QStringLiteral("there is no tool named '%1'").arg(name), true};
    }
    // Synchronous tools answer through the event loop too, so a long chain of them never
    // recurses.
    QMetaObject::invokeMethod(
        this, [this, out] { toolDone(out, static_cast<double>(nowMs() - m_toolStartMs) / 1000.0); },
        Qt::QueuedConnection);
}

void AgentSession::onHarnessResult(const HarnessToolResult& result) {
    if (result.record) {
        const bool correct = result.record->evaluation.verdict == "correct";
        m_verified.insert(result.codeHash, correct);
        if (correct && (!m_best || betterThan(*result.record, *m_best))) {
            m_best = result.record;
            m_bestCode = m_workspace.read(QStringLiteral("model_new.py")).value_or(QString());
        }
        if (goodEnough(*result.record, m_ctx.settings.targetSpeedup))
            m_targetReached = true;
    }
    toolDone(result.output, static_cast<double>(nowMs() - m_toolStartMs) / 1000.0);
}

void AgentSession::toolDone(const ToolOutput& output, double seconds) {
    if (m_finished || m_nextCall >= m_pendingCalls.size())
        return;
    const ToolCall& call = m_pendingCalls.at(m_nextCall);
    // A key a command or candidate printed goes neither to the model nor to the database.
    const QString text = redactSecrets(output.text, m_ctx.secrets);
    m_messages.append(ChatMessage::toolResult(call.id, text, output.isError));
    m_callResults.append(QJsonObject{{QStringLiteral("id"), call.id},
                                     {QStringLiteral("name"), call.name},
                                     {QStringLiteral("arguments"), call.argumentsJson},
                                     {QStringLiteral("result"), text},
                                     {QStringLiteral("is_error"), output.isError},
                                     {QStringLiteral("seconds"), seconds}});
    ++m_nextCall;
    runNextTool();
}

void AgentSession::storePendingTurn() {
    if (!m_pendingTurn)
        return;
    if (!m_callResults.isEmpty()) {
        const QString json =
            QString::fromUtf8(QJsonDocument(m_callResults).toJson(QJsonDocument::Compact));
        m_pendingTurn->toolCallsJson = redactSecrets(json, m_ctx.secrets).toStdString();
    }
    store(*m_pendingTurn);
    m_pendingTurn.reset();
    m_callResults = QJsonArray();
}

void AgentSession::finish(const QString& why) {
    if (m_finished)
        return;
    m_finished = true;
    log(QStringLiteral("attempt %1: agent stopped after %2 turn(s): %3")
            .arg(m_ctx.attemptId)
            .arg(m_calls)
            .arg(why));
    markCandidateTurn(std::max(m_ctx.firstTurnIndex, nextTurnIndex() - 1));
    const auto current = m_workspace.read(QStringLiteral("model_new.py"));
    // A final edit that verified as wrong does not replace the best correct version.
    if (current && !current->trimmed().isEmpty()) {
        const auto verified = m_verified.constFind(sha256Hex(current->toUtf8()));
        if (verified != m_verified.cend() && !verified.value() && !m_bestCode.isEmpty()) {
            Q_EMIT candidateReady(m_bestCode);
            return;
        }
        Q_EMIT candidateReady(*current);
        return;
    }
    if (!m_bestCode.isEmpty()) {
        Q_EMIT candidateReady(m_bestCode);
        return;
    }
    Q_EMIT noCandidate(QStringLiteral("the agent wrote no model_new.py (%1)").arg(why), false);
}

} // namespace kb::engine
