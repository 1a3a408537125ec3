#pragma once
// The agent's build, verify, benchmark and profile tools: the project's own harness run on the
// workspace's model_new.py, read-only for the agent. Each call draws a fresh seed (never the
// run's secret one) and writes its result to a private file outside the workspace; the model
// sees a summary, never the raw document. `profile` runs the harness's `profile` subcommand
// (Nsight Compute, and Nsight Systems where present, on the GPU host) and returns its text
// summary: top kernels, occupancy, throughput and roofline position.

#include "agentworkspace.h"
#include "db/records.h"
#include "generationsession.h"

#include <QJsonObject>
#include <QPointer>
#include <optional>

namespace kb::engine {

class HarnessProcess;
struct HarnessOutcome;

enum class HarnessToolKind { Build, Verify, Benchmark, Profile };

// The profile document's schema (kbharness/profile.py).
inline constexpr const char* kProfileSchema = "kbstudio.profile-result/1";

struct HarnessToolResult {
    ToolOutput output;
    std::optional<db::EvaluationRecord> record; // verify and benchmark, when the harness answered
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
    HarnessToolResult profileResult(const QJsonObject& doc) const;
    void finishLater(const HarnessToolResult& result);

    GenerationContext m_ctx;
    QString m_workspace;
    QString m_resultPath;
    QString m_codeHash;
    QPointer<HarnessProcess> m_process;
};

} // namespace kb::engine
