#pragma once
// Plain rows as stored and read back by the repositories. No behaviour, no Qt.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb::db {

using Id = std::int64_t;

// The states of a run (runs.status). Their stored names are the lower-case words.
enum class RunStatus { Created, Running, Paused, Finished, Failed, Cancelled };
// The states of an attempt (attempts.status), in the order an attempt goes through them.
enum class AttemptStatus { Queued, Generating, Building, Evaluating, Done, Failed, Cancelled };

// The stored names, and back (status.cpp holds the only list of them). A name this program does
// not know (a newer program's database, a damaged row) is nullopt from parse*, and the fallback
// from *FromString: Failed for both, a state nothing resumes or counts as pending.
const char* toString(RunStatus status);
const char* toString(AttemptStatus status);
std::optional<RunStatus> parseRunStatus(std::string_view name);
std::optional<AttemptStatus> parseAttemptStatus(std::string_view name);
inline constexpr RunStatus kUnknownRunStatus = RunStatus::Failed;
inline constexpr AttemptStatus kUnknownAttemptStatus = AttemptStatus::Failed;
RunStatus runStatusFromString(std::string_view name);
AttemptStatus attemptStatusFromString(std::string_view name);

// A run that may still do work: created, running or paused.
bool isLive(RunStatus status);
// An attempt being worked on: generating, building or evaluating.
bool isActive(AttemptStatus status);
// Queued or active: its result is still to come.
bool isPending(AttemptStatus status);
// Done, failed or cancelled.
bool isFinished(AttemptStatus status);

struct ProviderRow {
    Id id = 0;
    std::string name;
    std::string kind; // demo, replay, openai, anthropic
    std::string baseUrl;
    std::string settingsJson = "{}";
};

struct ModelRow {
    Id id = 0;
    Id providerId = 0;
    std::string name;
    std::string label;
    std::optional<double> priceInPerMTok;
    std::optional<double> priceOutPerMTok;
    std::string settingsJson = "{}";
    std::string providerName; // read-only join
    std::string providerKind; // read-only join
};

struct SuiteRow {
    Id id = 0;
    std::string name;
    std::string description;
    std::string source;
};

struct TaskRow {
    Id id = 0;
    Id suiteId = 0;
    std::string key;
    std::string name;
    int level = 1;
    std::string source;
    std::string sourceHash;
    std::string metadataJson = "{}";
    int version = 1;     // read-only: 1, 2, ... per (suite, key), set when stored
    bool current = true; // read-only: the version new runs take
};

// What storing a suite's tasks did.
struct TaskImport {
    std::vector<Id> ids; // the current version of each task, in the order given
    int added = 0;       // new task ids
    int updated = 0;     // changed in place (no attempt had used them)
    int versioned = 0;   // changed after a run used them: a new version, the old one kept
    int unchanged = 0;
};

struct RunRow {
    Id id = 0;
    std::string name;
    Id suiteId = 0;
    std::string mode = "one-shot";
    std::string settingsJson = "{}";
    std::string status = toString(RunStatus::Created);
    std::string createdAt;
    std::optional<std::string> startedAt;
    std::optional<std::string> finishedAt;
    std::string message;
    std::string suiteName; // read-only join

    RunStatus runStatus() const { return runStatusFromString(status); }
};

// How sure a speedup is (schema 7): the 95 % interval of each speedup as the harness measured
// it (interleaved eager/candidate blocks), whether a measurement missed its precision target
// within its time cap ("noisy"), and the task's timing regime. Empty for older attempts.
struct SpeedupUncertainty {
    std::optional<double> eagerLow;
    std::optional<double> eagerHigh;
    std::optional<double> compileLow;
    std::optional<double> compileHigh;
    bool noisyEager = false;
    bool noisyCompile = false;
    std::string regime; // device-bound, launch-bound, cpu; empty when not reported
    bool noisy() const { return noisyEager || noisyCompile; }
};

struct AttemptRow {
    Id id = 0;
    Id runId = 0;
    Id modelId = 0;
    Id taskId = 0;
    int sampleIndex = 0;
    std::string mode = "one-shot";
    std::string status = toString(AttemptStatus::Queued);
    std::string verdict = "pending";
    std::string message;
    bool suspicious = false;
    std::string review = "none";
    std::string reviewNote;
    std::optional<double> speedupEager;
    std::optional<double> speedupCompile;
    SpeedupUncertainty uncertainty;
    std::optional<double> costUsd; // read-only: the sum of its turns' costs, when priced
    std::optional<std::string> startedAt;
    std::optional<std::string> finishedAt;
    // read-only joins
    std::string modelName;
    std::string taskKey;
    std::string taskName;
    int level = 1;
    std::int64_t inputTokens = 0;
    std::int64_t outputTokens = 0;
    int turns = 0;

    AttemptStatus attemptStatus() const { return attemptStatusFromString(status); }
};

// One model on one task (in one run or all), summed over its samples from task_summaries: what
// a leaderboard needs without reading every attempt.
struct TaskSummaryRow {
    std::string modelName;
    std::string taskKey;
    int level = 1;
    std::int64_t attempts = 0;
    std::int64_t samples = 0;        // attempted samples
    bool built = false;              // some sample got past the build
    std::int64_t scoring = 0;        // samples that score
    std::optional<double> bestEager; // largest usable speedup of a scoring sample
    std::optional<double> bestCompile;
    // Largest "clearing" speedup of a scoring sample: its interval's lower bound, or the speedup
    // itself when it has no interval (what fast_p compares with p).
    std::optional<double> clearEager;
    std::optional<double> clearCompile;
    std::int64_t noisy = 0;   // scoring samples whose timing missed its precision target
    double costUsd = 0;       // summed attempt cost
    bool compileSeen = false; // some sample, scoring or not, has a usable compile speedup
    std::int64_t suspicious = 0;
    std::int64_t acceptedSuspicious = 0;
    std::int64_t rejected = 0;
    std::int64_t inputTokens = 0;
    std::int64_t outputTokens = 0;
    std::int64_t turns = 0;
};

struct TurnRow {
    TurnRow() = default;
    // The columns every turn has; the others keep their defaults.
    TurnRow(Id rowId, Id attempt, int index, std::string promptText, std::string responseText,
            std::int64_t in, std::int64_t out, double latency, std::string stop)
        : id(rowId)
        , attemptId(attempt)
        , turnIndex(index)
        , prompt(std::move(promptText))
        , response(std::move(responseText))
        , inputTokens(in)
        , outputTokens(out)
        , latencyMs(latency)
        , stopReason(std::move(stop)) {}

    Id id = 0;
    Id attemptId = 0;
    int turnIndex = 0;
    std::string prompt;
    std::string response;
    std::int64_t inputTokens = 0;
    std::int64_t outputTokens = 0;
    double latencyMs = 0;
    std::string stopReason;
    std::string role = "generation";  // generation, feedback, tool
    std::string messagesJson = "[]";  // the messages sent, keys redacted
    std::string toolCallsJson = "[]"; // the tool calls the model made, and their results
    std::int64_t cacheReadTokens = 0;
    std::int64_t cacheWriteTokens = 0;
    std::string reasoning;
    std::optional<double> costUsd;
    std::string error;            // why the call failed, when it did
    std::optional<double> ttftMs; // time to the first token (streamed answers)
    std::string modelSnapshot;    // the model the provider says answered
};

struct CandidateRow {
    Id id = 0;
    Id attemptId = 0;
    int turnIndex = 0;
    std::string code;
    std::string codeHash;
    std::string format = "kernelbench";
};

struct BuildRow {
    Id id = 0;
    Id candidateId = 0;
    std::string status = "skipped"; // ok, cached, failed, skipped
    double seconds = 0;
    std::string cacheKey;
    std::string log;
    std::string errorsJson = "[]";
};

struct EnvironmentRow {
    Id id = 0;
    std::string fingerprint;
    std::string device;
    std::string deviceName;
    std::string torch;
    std::string python;
    std::string cuda;
    std::string driver;
    std::string detailsJson = "{}";
};

struct TrialRow {
    int index = 0;
    bool passed = false;
    std::optional<double> maxAbsError;
    std::optional<double> maxRelError;
    std::optional<double> mismatchFraction;
    std::string message;
};

struct TimingSeriesRow {
    Id id = 0;
    std::string kind; // candidate, eager, compile
    std::vector<double> samplesMs;
    double medianMs = 0;
    double meanMs = 0;
    double stdMs = 0;
    double minMs = 0;
    double maxMs = 0;
    std::optional<double> wallMs;
};

struct FindingRow {
    std::string rule;
    std::string severity; // reject, suspicious, info
    std::string location;
    std::string message;
};

struct BaselineRow {
    Id id = 0;
    std::string taskHash;
    std::string device;
    std::string torchVersion;
    std::string settingsKey;
    std::optional<double> eagerMedianMs;
    std::optional<double> compileMedianMs;
    std::string compileNote;
    std::string measuredAt;
};

struct EvaluationRow {
    Id id = 0;
    Id attemptId = 0;
    Id candidateId = 0;
    std::string verdict;
    std::string message;
    bool correctnessPassed = false;
    int trials = 0;
    std::optional<double> maxAbsError;
    std::optional<double> meanAbsError;
    std::optional<double> maxRelError;
    double harnessSeconds = 0;
    std::string settingsJson = "{}";
    std::string resultJson = "{}";
    std::string createdAt;
};

// Everything one finished evaluation produces; stored in one transaction with the attempt's
// final state so a crash can never leave half an evaluation behind.
// One NVML reading of the timing GPU, before or after the candidate's timed loop.
struct GpuSampleRow {
    std::string phase; // before, after
    int gpuIndex = 0;
    std::optional<double> smClockMhz;
    std::optional<double> memClockMhz;
    std::optional<double> temperatureC;
    std::optional<double> powerW;
    std::optional<double> utilization;
    std::string throttleReasons; // comma-separated NVML reason names
};

struct EvaluationRecord {
    Id attemptId = 0;
    CandidateRow candidate;
    std::optional<BuildRow> build;
    std::optional<EnvironmentRow> environment;
    EvaluationRow evaluation;
    std::vector<TrialRow> trials;
    std::vector<TimingSeriesRow> timing;
    std::optional<BaselineRow> baseline; // keyed by task hash, device, torch, settings
    std::vector<FindingRow> findings;
    std::vector<GpuSampleRow> gpuSamples;
    // the attempt's final state
    std::string attemptStatus = toString(AttemptStatus::Done);
    std::string attemptVerdict;
    std::string attemptMessage;
    bool suspicious = false;
    std::optional<double> speedupEager;
    std::optional<double> speedupCompile;
    SpeedupUncertainty uncertainty;
};

// What the harness found when it ran a task's reference on one device (on import or later):
// flags such as "below-tolerance" make a task weak (an all-zeros answer would pass).
struct TaskValidationRow {
    Id taskId = 0;
    std::string device;             // cpu, cuda
    std::string flagsJson = "[]";   // [{"flag": ..., "message": ...}]
    std::string detailsJson = "{}"; // the harness's whole report
    std::string checkedAt;
    std::string taskKey; // read-only join, where a reader says so
};

// Everything stored about one attempt, for detail views and exports.
struct AttemptDetail {
    AttemptRow attempt;
    std::vector<TurnRow> turns;
    std::optional<CandidateRow> candidate;
    std::optional<BuildRow> build;
    std::optional<EvaluationRow> evaluation;
    std::vector<TrialRow> trials;
    std::vector<TimingSeriesRow> timing;
    std::vector<FindingRow> findings;
    std::optional<EnvironmentRow> environment;
};

} // namespace kb::db
