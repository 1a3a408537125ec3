#pragma once
// One attempt's conversation with a model, driven asynchronously by the run engine: it ends in
// a candidate program (candidateReady) or in no candidate (noCandidate: an error, a refusal, a
// reply without code). A multi-turn session can be continued with feedback on its last
// candidate. Sessions store each model call as a turn through the context's sink.

#include "db/records.h"
#include "eval/evalsettings.h"
#include "generationsettings.h"
#include "providers/prompt.h"

#include <QObject>
#include <functional>

namespace kb::engine {

struct GenerationContext {
    db::Id attemptId = 0;
    QString model;
    QString taskKey;
    QString taskName;
    int level = 1;
    QString taskSource;
    int sampleIndex = 0;
    QString mode = kModeOneShot;
    GenerationSettings settings;
    EvalSettings eval;
    QString workDir;        // the attempt's folder; agents get a workspace under it
    QString buildCacheDir;  // the model's folder of the harness's build cache (agents' build tool)
    QString buildCacheRoot; // the whole cache, hidden from the candidate's sandbox
    QList<QByteArray> secrets; // the provider's key(s): redacted from everything stored
    int firstTurnIndex = 0;
    std::function<void(const db::TurnRow&)> storeTurn;
    std::function<void(const QString&)> log;
};

// The one-shot prompt of an attempt: the run's stored template filled with the task and the
// run's device, precision and tolerances (the built-in kbstudio template for runs stored
// before templates were chosen per run).
RenderedPrompt oneShotPrompt(const GenerationContext& context);

class GenerationSession : public QObject {
    Q_OBJECT
public:
    explicit GenerationSession(GenerationContext context, QObject* parent = nullptr);
    // Starts the conversation; every outcome is signalled after start() has returned.
    virtual void start() = 0;
    // Whether continueWith() can produce another candidate (multi-turn on a real model).
    virtual bool canContinue() const { return false; }
    // Sends feedback on the last candidate and asks for a better one.
    virtual void continueWith(const QString& feedback) { Q_UNUSED(feedback); }
    // The turn index the next stored call gets; the engine stores candidates under the index of
    // the turn that produced them.
    int nextTurnIndex() const { return m_nextTurn; }
    int candidateTurnIndex() const { return m_candidateTurn; }
    const GenerationContext& context() const { return m_ctx; }

Q_SIGNALS:
    void candidateReady(const QString& code);
    // refused: the model declined (stop reason 'refusal'), which is a result, not an error.
    void noCandidate(const QString& message, bool refused);
    // The provider gave no answer (an HTTP error after the retries, a timeout, a cut stream, a
    // spent budget): not the model's result. httpStatus is 0 when no HTTP answer came.
    void providerFailed(const QString& message, int httpStatus);

protected:
    int takeTurnIndex() { return m_nextTurn++; }
    void markCandidateTurn(int index) { m_candidateTurn = index; }
    void store(const db::TurnRow& row) const;
    void log(const QString& line) const;
    void emitCandidateLater(const QString& code);
    void emitNoCandidateLater(const QString& message, bool refused = false);

    GenerationContext m_ctx;

private:
    int m_nextTurn = 0;
    int m_candidateTurn = 0;
};

} // namespace kb::engine
