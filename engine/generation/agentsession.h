#pragma once
// The tool-using agent: a workspace per attempt with the task's files, a loop of model calls
// and tool calls (files, a sandboxed shell, the harness's build/verify/benchmark, the Nsight
// profiler), a context budget that shortens old tool output, and the stop rule: a verified
// candidate at least the target speedup over torch.compile (eager where compile is
// unavailable), the model ending its turn, or the turn budget spent. The workspace's model_new.py
// is the candidate.

#include "agentworkspace.h"
#include "chatexchange.h"
#include "generationsession.h"
#include "harnesstool.h"

#include <QHash>

namespace kb::engine {

class CommandRunner;

class AgentSession : public GenerationSession {
    Q_OBJECT
public:
    AgentSession(GenerationContext context, ChatClient* client, QObject* parent = nullptr);
    void start() override;

    QString workspacePath() const { return m_workspace.root(); }
    // Shortens the oldest tool results, then the long arguments of old tool calls, until the
    // conversation fits `budgetChars`; the last `keepRecent` messages are never touched.
    // Returns how many were shortened.
    static int applyContextBudget(QList<ChatMessage>& messages, qint64 budgetChars,
                                  int keepRecent = 6);

private:
    void ask();
    void onAnswered(const ChatRequest& sent, const ChatResponse& response);
    void onCallFailed(const ChatRequest& sent, const ProviderError& error, bool willRetry);
    void runNextTool();
    void toolDone(const ToolOutput& output, double seconds);
    void onHarnessResult(const HarnessToolResult& result);
    void storePendingTurn();
    void finish(const QString& why);

    AgentWorkspace m_workspace;
    ChatExchange* m_exchange;
    HarnessTool* m_harness;
    CommandRunner* m_commands;
    QList<ChatMessage> m_messages;
    QList<ToolDefinition> m_tools;
    int m_calls = 0;
    // The answer whose tool calls are running, stored as a turn once their results are in.
    std::optional<db::TurnRow> m_pendingTurn;
    QList<ToolCall> m_pendingCalls;
    QJsonArray m_callResults;
    qsizetype m_nextCall = 0;
    qint64 m_toolStartMs = 0;
    bool m_targetReached = false;
    bool m_finished = false;
    // Verified versions of model_new.py: hash -> correct?; the best correct one is kept.
    QHash<QString, bool> m_verified;
    std::optional<db::EvaluationRecord> m_best;
    QString m_bestCode;
};

} // namespace kb::engine
