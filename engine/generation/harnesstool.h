#pragma once
// The agent's build, verify and profile tools: the project's own harness run on the
// workspace's model_new.py, read-only for the agent. Each call draws a fresh seed (never the
// run's secret one) and writes its result to a private file outside the workspace; the model
// sees a summary, never the raw document.

#include "agentworkspace.h"
#include "db/records.h"
#include "generationsession.h"

#include <QPointer>
#include <optional>

namespace kb::engine {

class HarnessProcess;
struct HarnessOutcome;

enum class HarnessToolKind { Build, Verify, Profile };

struct HarnessToolResult {
    ToolOutput output;
    std::optional<db::EvaluationRecord> record; // verify and profile, when the harness answered
    QString codeHash;                           // of the model_new.py that was checked
};

class HarnessTool : public QObject {
    Q_OBJECT
public:
    HarnessTool(const GenerationContext& context, QString workspace, QObject* parent = nullptr);
    ~HarnessTool() override;
    void run(HarnessToolKind kind);

Q_SIGNALS:
    void finished(const kb::engine::HarnessToolResult& result);

private:
    QByteArray request(HarnessToolKind kind) const;
    void onFinished(HarnessToolKind kind, const HarnessOutcome& outcome);
    void finishLater(const HarnessToolResult& result);

    GenerationContext m_ctx;
    QString m_workspace;
    QString m_resultPath;
    QString m_codeHash;
    QPointer<HarnessProcess> m_process;
};

} // namespace kb::engine
