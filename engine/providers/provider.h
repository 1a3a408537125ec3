#pragma once
// What the engine asks of a model provider: turn a prompt into a candidate.

#include <QString>

namespace kb::engine {

struct GenerationRequest {
    QString model;
    QString taskKey;
    QString taskName;
    int level = 1;
    QString taskSource;
    int sampleIndex = 0;
    QString prompt;
    QString device = QStringLiteral("cpu"); // where the candidate will run: cpu or cuda
};

struct GenerationResult {
    bool ok = false;
    QString prompt;   // as sent
    QString response; // as received
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    double latencyMs = 0;
    QString stopReason;
    QString error;          // when !ok
    bool transient = false; // a retry may succeed (429, 5xx, lost connection)
};

class Provider {
public:
    virtual ~Provider() = default;
    virtual QString kind() const = 0;
    virtual GenerationResult generate(const GenerationRequest& request) = 0;
};

} // namespace kb::engine
