#pragma once
// The generation side of a run: starts the session that writes an attempt's candidates (the
// demo provider, a model's chat client, or an imported candidate), counts the generation slots
// held while first candidates are written, and asks for another turn after an evaluation while
// the run's generation settings allow one. What became of a session goes to the callbacks, for
// the jobs the engine still has in hand.

#include "attemptjob.h"
#include "db/sqlite.h"
#include "eval/evalsettings.h"
#include "generationbackends.h"

#include <QObject>
#include <functional>
#include <memory>
#include <optional>

namespace kb::engine {

class KeyStore;

class AttemptGenerator : public QObject {
    Q_OBJECT
public:
    using JobPtr = std::shared_ptr<AttemptJob>;
    struct Callbacks {
        std::function<bool(const JobPtr&)> wanted; // still in the engine's hands
        std::function<void(const JobPtr&, const QString& code)> candidate;
        std::function<void(const JobPtr&, const QString& message)> noCandidate;
        std::function<void(const JobPtr&, const QString& message, int httpStatus)> providerFailed;
        std::function<void(db::Id attemptId, const db::Error& error)> turnNotStored;
    };

    explicit AttemptGenerator(db::Connection& conn, QObject* parent = nullptr);
    ~AttemptGenerator() override;
    void setCallbacks(Callbacks callbacks) { m_callbacks = std::move(callbacks); }
    void setKeyStore(std::shared_ptr<KeyStore> keys) { m_backends.setKeyStore(std::move(keys)); }

    // A run begins (or resumes): its settings and the build cache its agents may use.
    void beginRun(db::Id runId, const EvalSettings& settings, const QString& buildCacheRoot);
    // The run's work was dropped: no slot is held any more.
    void releaseAll() { m_generating = 0; }
    int generating() const { return m_generating; }
    // How the run's models are asked (read once per run).
    const GenerationSettings& settings();

    // Starts writing the job's first candidate, holding a generation slot until it is there.
    // Returns why not when the model has no way to answer (nothing was started).
    std::optional<QString> start(const JobPtr& job, const db::ModelRow& model);
    // After an evaluated turn: the record's attempt summary follows the best turn; when another
    // turn is due, the record is stored as that turn's and feedback goes out (true). False: the
    // record is the attempt's last.
    bool continueAfter(const JobPtr& job, db::EvaluationRecord& record);

Q_SIGNALS:
    void logLine(const QString& line);

private:
    db::Connection& m_conn;
    GenerationBackends m_backends{this};
    Callbacks m_callbacks;
    db::Id m_runId = 0;
    EvalSettings m_eval;
    QString m_buildCacheRoot;
    std::optional<GenerationSettings> m_settings;
    int m_generating = 0;
    // Slots given back after this generator is gone leave its counter alone.
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
};

} // namespace kb::engine
