#include "schema.h"

#include <string>
#include <vector>

namespace kb::db {
namespace {

// The per-(run, model, task) rows of task_summaries computed from attempts and their turns
// (`where` narrows the attempts). The classes follow engine::toMetricsVerdict and
// metrics::resolveTasks exactly (a test compares both ways): a review 'rejected' makes the
// attempt rejected; pending, no_candidate and harness_error were not attempted; a build error or
// a rejection did not get past the build; a sample scores when correct and not
// suspicious-unaccepted; a speedup is usable when finite and > 0.
// With `clearing` (schema 7 on) four columns follow, from attempt_timing: per baseline the
// largest clearing speedup of a scoring sample (the lower bound of its interval, or its speedup
// when it has none), the scoring samples whose timing was noisy, and the attempts' summed cost.
std::string summarySelect(const std::string& where, bool clearing = false) {
    const std::string scoring = "(a.review != 'rejected' AND a.verdict = 'correct' AND "
                                "(CAST(a.suspicious AS INTEGER) = 0 OR a.review = 'accepted'))";
    const auto usable = [](const std::string& column) {
        return "(a." + column + " > 0 AND a." + column + " < 9e999)";
    };
    const auto best = [&](const std::string& column) {
        return "max(CASE WHEN " + scoring + " AND " + usable(column) + " THEN a." + column +
               " END)";
    };
    const auto clear = [&](const std::string& column) {
        const std::string low = "u." + column + "_low";
        return "max(CASE WHEN " + scoring + " AND " + usable(column) + " THEN coalesce(CASE WHEN " +
               low + " > 0 AND " + low + " < 9e999 THEN " + low + " END, a." + column + ") END)";
    };
    const auto turnSum = [](const std::string& what) {
        return "sum((SELECT " + what + " FROM turns WHERE attempt_id = a.id))";
    };
    return "SELECT a.model_id, a.task_id, a.run_id, count(*), "
           "sum(a.review = 'rejected' OR a.verdict IN ('correct','incorrect','build_error',"
           "'runtime_error','invalid_candidate','timeout','rejected')), "
           "max(a.review != 'rejected' AND a.verdict IN ('correct','incorrect','runtime_error',"
           "'invalid_candidate','timeout')), "
           "sum(" +
           scoring + "), " + best("speedup_eager") + ", " + best("speedup_compile") +
           ", "
           "coalesce(max(" +
           usable("speedup_compile") +
           "), 0), "
           "sum(CAST(a.suspicious AS INTEGER) != 0 AND a.review != 'accepted'), "
           "sum(CAST(a.suspicious AS INTEGER) != 0 AND a.review = 'accepted'), "
           "sum(a.verdict = 'rejected' OR a.review = 'rejected'), " +
           turnSum("coalesce(sum(input_tokens), 0)") + ", " +
           turnSum("coalesce(sum(output_tokens), 0)") + ", " + turnSum("count(*)") +
           (clearing ? ", " + clear("speedup_eager") + ", " + clear("speedup_compile") + ", sum(" +
                           scoring +
                           " AND (coalesce(u.noisy_eager, 0) != 0 OR "
                           "coalesce(u.noisy_compile, 0) != 0)), coalesce(sum(a.cost_usd), 0)"
                     : std::string()) +
           " FROM attempts a " +
           (clearing ? "LEFT JOIN attempt_timing u ON u.attempt_id = a.id " : std::string()) +
           where + " GROUP BY a.run_id, a.model_id, a.task_id";
}

// Rebuilds the summary of one (run, model, task), given as SQL expressions; no row is left when
// the task has no attempt left.
std::string resummarize(const std::string& run, const std::string& model, const std::string& task,
                        bool clearing = false) {
    return "DELETE FROM task_summaries WHERE run_id = " + run + " AND model_id = " + model +
           " AND task_id = " + task + ";\nINSERT INTO task_summaries " +
           summarySelect("WHERE a.run_id = " + run + " AND a.model_id = " + model +
                             " AND a.task_id = " + task,
                         clearing) +
           ";\n";
}

std::string resummarizeRow(const std::string& row, bool clearing = false) {
    return resummarize(row + ".run_id", row + ".model_id", row + ".task_id", clearing);
}

std::string resummarizeAttempt(const std::string& attemptId, bool clearing = false) {
    const auto column = [&](const char* name) {
        return "(SELECT " + std::string(name) + " FROM attempts WHERE id = " + attemptId + ")";
    };
    return resummarize(column("run_id"), column("model_id"), column("task_id"), clearing);
}

// 4: what a leaderboard needs of each (run, model, task), kept current by triggers, so that a
//    leaderboard over a million attempts reads one row per task and run instead of one per
//    sample with its turns.
std::string taskSummariesMigration() {
    return R"SQL(
CREATE TABLE task_summaries (
    model_id            INTEGER NOT NULL,
    task_id             INTEGER NOT NULL,
    run_id              INTEGER NOT NULL,
    attempts            INTEGER NOT NULL,  -- every sample, whatever its state
    samples             INTEGER NOT NULL,  -- samples that were attempted
    built               INTEGER NOT NULL,  -- 1 when some sample got past the build
    scoring             INTEGER NOT NULL,  -- samples that score
    best_eager          REAL,              -- largest usable speedup of a scoring sample
    best_compile        REAL,
    compile_seen        INTEGER NOT NULL,  -- 1 when any sample has a usable compile speedup
    suspicious          INTEGER NOT NULL,  -- flagged and not accepted
    accepted_suspicious INTEGER NOT NULL,
    rejected            INTEGER NOT NULL,
    input_tokens        INTEGER NOT NULL,
    output_tokens       INTEGER NOT NULL,
    turns               INTEGER NOT NULL,
    PRIMARY KEY (model_id, task_id, run_id)
) WITHOUT ROWID;
CREATE INDEX task_summaries_run ON task_summaries(run_id);
CREATE TRIGGER task_summaries_attempt_insert AFTER INSERT ON attempts BEGIN
)SQL" + resummarizeRow("NEW") +
           R"SQL(END;
CREATE TRIGGER task_summaries_attempt_delete AFTER DELETE ON attempts BEGIN
)SQL" + resummarizeRow("OLD") +
           R"SQL(END;
CREATE TRIGGER task_summaries_attempt_update AFTER UPDATE OF run_id, model_id, task_id, verdict,
    review, suspicious, speedup_eager, speedup_compile ON attempts BEGIN
)SQL" + resummarizeRow("NEW") +
           R"SQL(END;
CREATE TRIGGER task_summaries_attempt_move AFTER UPDATE OF run_id, model_id, task_id ON attempts
    WHEN OLD.run_id IS NOT NEW.run_id OR OLD.model_id IS NOT NEW.model_id
      OR OLD.task_id IS NOT NEW.task_id BEGIN
)SQL" + resummarizeRow("OLD") +
           R"SQL(END;
CREATE TRIGGER task_summaries_turn_insert AFTER INSERT ON turns BEGIN
)SQL" + resummarizeAttempt("NEW.attempt_id") +
           R"SQL(END;
CREATE TRIGGER task_summaries_turn_delete AFTER DELETE ON turns BEGIN
)SQL" + resummarizeAttempt("OLD.attempt_id") +
           R"SQL(END;
CREATE TRIGGER task_summaries_turn_update AFTER UPDATE OF attempt_id, input_tokens, output_tokens
    ON turns BEGIN
)SQL" + resummarizeAttempt("OLD.attempt_id") +
           resummarizeAttempt("NEW.attempt_id") + R"SQL(END;
INSERT INTO task_summaries )SQL" +
           summarySelect({}) + ";\n";
}

// 7: how sure each speedup is. The harness measures eager and candidate interleaved and
//    reports each speedup's 95 % interval, whether it reached its precision target ("noisy"
//    when not) and the timing regime; they live in attempt_timing, one row per measured
//    attempt. task_summaries gains the largest clearing speedup per baseline (interval lower
//    bound, else the speedup) that fast_p compares with p, the noisy scoring samples and the
//    attempts' cost; it is rebuilt with its triggers (which now also watch attempt_timing and
//    the attempts' cost) and recomputed. Every statement can be applied again to its own result.
std::string speedupUncertaintyMigration() {
    std::string sql = R"SQL(
CREATE TABLE IF NOT EXISTS attempt_timing (
    attempt_id           INTEGER PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
    speedup_eager_low    REAL,               -- 95 % interval of attempts.speedup_eager
    speedup_eager_high   REAL,
    speedup_compile_low  REAL,               -- 95 % interval of attempts.speedup_compile
    speedup_compile_high REAL,
    noisy_eager          INTEGER NOT NULL DEFAULT 0,  -- missed its precision target in its time cap
    noisy_compile        INTEGER NOT NULL DEFAULT 0,
    regime               TEXT NOT NULL DEFAULT ''     -- device-bound, launch-bound, cpu
);
DROP TRIGGER IF EXISTS task_summaries_attempt_insert;
DROP TRIGGER IF EXISTS task_summaries_attempt_delete;
DROP TRIGGER IF EXISTS task_summaries_attempt_update;
DROP TRIGGER IF EXISTS task_summaries_attempt_move;
DROP TRIGGER IF EXISTS task_summaries_turn_insert;
DROP TRIGGER IF EXISTS task_summaries_turn_delete;
DROP TRIGGER IF EXISTS task_summaries_turn_update;
DROP TRIGGER IF EXISTS task_summaries_timing_insert;
DROP TRIGGER IF EXISTS task_summaries_timing_delete;
DROP TRIGGER IF EXISTS task_summaries_timing_update;
DROP TABLE IF EXISTS task_summaries;
CREATE TABLE task_summaries (
    model_id            INTEGER NOT NULL,
    task_id             INTEGER NOT NULL,
    run_id              INTEGER NOT NULL,
    attempts            INTEGER NOT NULL,  -- every sample, whatever its state
    samples             INTEGER NOT NULL,  -- samples that were attempted
    built               INTEGER NOT NULL,  -- 1 when some sample got past the build
    scoring             INTEGER NOT NULL,  -- samples that score
    best_eager          REAL,              -- largest usable speedup of a scoring sample
    best_compile        REAL,
    compile_seen        INTEGER NOT NULL,  -- 1 when any sample has a usable compile speedup
    suspicious          INTEGER NOT NULL,  -- flagged and not accepted
    accepted_suspicious INTEGER NOT NULL,
    rejected            INTEGER NOT NULL,
    input_tokens        INTEGER NOT NULL,
    output_tokens       INTEGER NOT NULL,
    turns               INTEGER NOT NULL,
    clear_eager         REAL,              -- largest clearing speedup of a scoring sample
    clear_compile       REAL,
    noisy               INTEGER NOT NULL,  -- scoring samples with noisy timing
    cost_usd            REAL NOT NULL,     -- summed attempt cost
    PRIMARY KEY (model_id, task_id, run_id)
) WITHOUT ROWID;
CREATE INDEX task_summaries_run ON task_summaries(run_id);
CREATE TRIGGER task_summaries_attempt_insert AFTER INSERT ON attempts BEGIN
)SQL";
    sql += resummarizeRow("NEW", true) + R"SQL(END;
CREATE TRIGGER task_summaries_attempt_delete AFTER DELETE ON attempts BEGIN
)SQL" + resummarizeRow("OLD", true) +
           R"SQL(END;
CREATE TRIGGER task_summaries_attempt_update AFTER UPDATE OF run_id, model_id, task_id, verdict,
    review, suspicious, speedup_eager, speedup_compile, cost_usd ON attempts BEGIN
)SQL" + resummarizeRow("NEW", true) +
           R"SQL(END;
CREATE TRIGGER task_summaries_attempt_move AFTER UPDATE OF run_id, model_id, task_id ON attempts
    WHEN OLD.run_id IS NOT NEW.run_id OR OLD.model_id IS NOT NEW.model_id
      OR OLD.task_id IS NOT NEW.task_id BEGIN
)SQL" + resummarizeRow("OLD", true) +
           R"SQL(END;
CREATE TRIGGER task_summaries_turn_insert AFTER INSERT ON turns BEGIN
)SQL" + resummarizeAttempt("NEW.attempt_id", true) +
           R"SQL(END;
CREATE TRIGGER task_summaries_turn_delete AFTER DELETE ON turns BEGIN
)SQL" + resummarizeAttempt("OLD.attempt_id", true) +
           R"SQL(END;
CREATE TRIGGER task_summaries_turn_update AFTER UPDATE OF attempt_id, input_tokens, output_tokens
    ON turns BEGIN
)SQL" + resummarizeAttempt("OLD.attempt_id", true) +
           resummarizeAttempt("NEW.attempt_id", true) + R"SQL(END;
CREATE TRIGGER task_summaries_timing_insert AFTER INSERT ON attempt_timing BEGIN
)SQL" + resummarizeAttempt("NEW.attempt_id", true) +
           R"SQL(END;
CREATE TRIGGER task_summaries_timing_delete AFTER DELETE ON attempt_timing BEGIN
)SQL" + resummarizeAttempt("OLD.attempt_id", true) +
           R"SQL(END;
CREATE TRIGGER task_summaries_timing_update AFTER UPDATE ON attempt_timing BEGIN
)SQL" + resummarizeAttempt("OLD.attempt_id", true) +
           resummarizeAttempt("NEW.attempt_id", true) + R"SQL(END;
INSERT INTO task_summaries )SQL" +
           summarySelect({}, true) + ";\n";
    return sql;
}

// Migration N is kMigrations[N - 1]. Never edit a released migration; append a new one.
const std::vector<std::string> kMigrations = {
    // 1: the initial schema.
    R"SQL(
CREATE TABLE providers (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    kind          TEXT NOT NULL,                 -- demo, replay, openai, anthropic
    base_url      TEXT NOT NULL DEFAULT '',
    settings_json TEXT NOT NULL DEFAULT '{}',    -- never holds an API key
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE models (
    id                  INTEGER PRIMARY KEY,
    provider_id         INTEGER NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    label               TEXT NOT NULL DEFAULT '',
    price_in_per_mtok   REAL,
    price_out_per_mtok  REAL,
    settings_json       TEXT NOT NULL DEFAULT '{}',
    UNIQUE (provider_id, name)
);
CREATE TABLE suites (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',        -- where it was imported from
    imported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE tasks (
    id            INTEGER PRIMARY KEY,
    suite_id      INTEGER NOT NULL REFERENCES suites(id) ON DELETE CASCADE,
    task_key      TEXT NOT NULL,                 -- stable id inside the suite
    name          TEXT NOT NULL,
    level         INTEGER NOT NULL CHECK (level BETWEEN 1 AND 4),
    source        TEXT NOT NULL,
    source_hash   TEXT NOT NULL,                 -- sha256 of source
    metadata_json TEXT NOT NULL DEFAULT '{}',    -- ops, validation flags, ...
    UNIQUE (suite_id, task_key)
);
CREATE INDEX tasks_hash ON tasks(source_hash);
CREATE TABLE environments (
    id           INTEGER PRIMARY KEY,
    fingerprint  TEXT NOT NULL UNIQUE,           -- sha256 of details_json
    device       TEXT NOT NULL,                  -- cpu, cuda
    device_name  TEXT NOT NULL DEFAULT '',
    torch        TEXT NOT NULL DEFAULT '',
    python       TEXT NOT NULL DEFAULT '',
    cuda         TEXT NOT NULL DEFAULT '',
    driver       TEXT NOT NULL DEFAULT '',
    details_json TEXT NOT NULL DEFAULT '{}',
    captured_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL DEFAULT '',
    suite_id      INTEGER NOT NULL REFERENCES suites(id),
    mode          TEXT NOT NULL DEFAULT 'one-shot',
    settings_json TEXT NOT NULL DEFAULT '{}',
    status        TEXT NOT NULL DEFAULT 'created'
                  CHECK (status IN ('created','running','paused','finished','failed','cancelled')),
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    started_at    TEXT,
    finished_at   TEXT,
    message       TEXT NOT NULL DEFAULT ''
);
CREATE TABLE run_models (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    model_id INTEGER NOT NULL REFERENCES models(id),
    PRIMARY KEY (run_id, model_id)
);
CREATE TABLE attempts (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    model_id        INTEGER NOT NULL REFERENCES models(id),
    task_id         INTEGER NOT NULL REFERENCES tasks(id),
    sample_index    INTEGER NOT NULL DEFAULT 0,
    mode            TEXT NOT NULL DEFAULT 'one-shot',
    status          TEXT NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued','generating','building','evaluating','done','failed','cancelled')),
    verdict         TEXT NOT NULL DEFAULT 'pending'
                    CHECK (verdict IN ('pending','correct','incorrect','build_error','runtime_error',
                                       'timeout','rejected','invalid_candidate','no_candidate','harness_error')),
    message         TEXT NOT NULL DEFAULT '',
    suspicious      INTEGER NOT NULL DEFAULT 0,
    review          TEXT NOT NULL DEFAULT 'none' CHECK (review IN ('none','accepted','rejected')),
    review_note     TEXT NOT NULL DEFAULT '',
    speedup_eager   REAL,
    speedup_compile REAL,
    started_at      TEXT,
    finished_at     TEXT,
    UNIQUE (run_id, model_id, task_id, sample_index)
);
CREATE INDEX attempts_run ON attempts(run_id, status);
CREATE TABLE turns (
    id            INTEGER PRIMARY KEY,
    attempt_id    INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    turn_index    INTEGER NOT NULL,
    prompt        TEXT NOT NULL DEFAULT '',
    response      TEXT NOT NULL DEFAULT '',
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    latency_ms    REAL NOT NULL DEFAULT 0,
    stop_reason   TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (attempt_id, turn_index)
);
CREATE TABLE candidates (
    id         INTEGER PRIMARY KEY,
    attempt_id INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    turn_index INTEGER NOT NULL DEFAULT 0,
    code       TEXT NOT NULL,
    code_hash  TEXT NOT NULL,
    format     TEXT NOT NULL DEFAULT 'kernelbench'
);
CREATE INDEX candidates_attempt ON candidates(attempt_id);
CREATE TABLE builds (
    id           INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
    status       TEXT NOT NULL CHECK (status IN ('ok','cached','failed','skipped')),
    seconds      REAL NOT NULL DEFAULT 0,
    cache_key    TEXT NOT NULL DEFAULT '',
    log          TEXT NOT NULL DEFAULT '',
    errors_json  TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE evaluations (
    id                 INTEGER PRIMARY KEY,
    attempt_id         INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    candidate_id       INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
    environment_id     INTEGER REFERENCES environments(id),
    baseline_id        INTEGER REFERENCES baselines(id),
    verdict            TEXT NOT NULL,
    message            TEXT NOT NULL DEFAULT '',
    correctness_passed INTEGER NOT NULL DEFAULT 0,
    trials             INTEGER NOT NULL DEFAULT 0,
    max_abs_error      REAL,
    mean_abs_error     REAL,                     -- mean over trials of each trial's max abs error
    max_rel_error      REAL,
    harness_seconds    REAL NOT NULL DEFAULT 0,
    settings_json      TEXT NOT NULL DEFAULT '{}',
    result_json        TEXT NOT NULL DEFAULT '{}', -- the harness's whole result document
    created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX evaluations_attempt ON evaluations(attempt_id);
CREATE TABLE correctness_trials (
    evaluation_id     INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
    trial_index       INTEGER NOT NULL,
    passed            INTEGER NOT NULL,
    max_abs_error     REAL,
    max_rel_error     REAL,
    mismatch_fraction REAL,
    message           TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (evaluation_id, trial_index)
) WITHOUT ROWID;
CREATE TABLE timing_series (
    id            INTEGER PRIMARY KEY,
    evaluation_id INTEGER REFERENCES evaluations(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('candidate','eager','compile')),
    samples       INTEGER NOT NULL,
    median_ms     REAL NOT NULL,
    mean_ms       REAL NOT NULL,
    std_ms        REAL NOT NULL,
    min_ms        REAL NOT NULL,
    max_ms        REAL NOT NULL,
    wall_ms       REAL                           -- the trusted parent's wall clock of the loop
);
CREATE INDEX timing_series_eval ON timing_series(evaluation_id);
CREATE TABLE timing_samples (
    series_id    INTEGER NOT NULL REFERENCES timing_series(id) ON DELETE CASCADE,
    sample_index INTEGER NOT NULL,
    ms           REAL NOT NULL,
    PRIMARY KEY (series_id, sample_index)
) WITHOUT ROWID;
CREATE TABLE baselines (
    id                INTEGER PRIMARY KEY,
    task_hash         TEXT NOT NULL,
    device            TEXT NOT NULL,             -- device name, e.g. "NVIDIA H200" or the CPU model
    torch_version     TEXT NOT NULL,
    settings_key      TEXT NOT NULL,             -- precision settings that change the numbers
    environment_id    INTEGER REFERENCES environments(id),
    eager_series_id   INTEGER REFERENCES timing_series(id) ON DELETE SET NULL,
    compile_series_id INTEGER REFERENCES timing_series(id) ON DELETE SET NULL,
    eager_median_ms   REAL,
    compile_median_ms REAL,
    compile_note      TEXT NOT NULL DEFAULT '',  -- why compile is unavailable, when it is
    measured_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    UNIQUE (task_hash, device, torch_version, settings_key)
);
CREATE TABLE findings (
    id            INTEGER PRIMARY KEY,
    attempt_id    INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    evaluation_id INTEGER REFERENCES evaluations(id) ON DELETE CASCADE,
    rule          TEXT NOT NULL,
    severity      TEXT NOT NULL CHECK (severity IN ('reject','suspicious','info')),
    location      TEXT NOT NULL DEFAULT '',
    message       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX findings_attempt ON findings(attempt_id);
)SQL",
    // 2: scheduling (leases, heartbeats, retries, priorities), engines, richer transcripts,
    //    GPU telemetry and task validation.
    R"SQL(
ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN backend TEXT NOT NULL DEFAULT 'local';     -- local, slurm
ALTER TABLE attempts ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE attempts ADD COLUMN tries INTEGER NOT NULL DEFAULT 0;      -- transient failures retried
ALTER TABLE attempts ADD COLUMN next_try_at REAL;                     -- unix seconds; NULL = now
ALTER TABLE attempts ADD COLUMN lease_owner TEXT;                     -- engines.owner holding it
ALTER TABLE attempts ADD COLUMN lease_expires_at REAL;                -- unix seconds
ALTER TABLE attempts ADD COLUMN cost_usd REAL;
CREATE INDEX attempts_lease ON attempts(lease_owner, lease_expires_at);
CREATE TABLE engines (
    id           INTEGER PRIMARY KEY,
    owner        TEXT NOT NULL UNIQUE,                 -- random id of one engine process
    host         TEXT NOT NULL DEFAULT '',
    pid          INTEGER NOT NULL DEFAULT 0,
    kind         TEXT NOT NULL DEFAULT 'local',        -- local (in the GUI or CLI), serve, slurm
    run_id       INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    started_at   REAL NOT NULL,
    heartbeat_at REAL NOT NULL,
    stopped_at   REAL
);
ALTER TABLE turns ADD COLUMN role TEXT NOT NULL DEFAULT 'generation'; -- generation, feedback, tool
ALTER TABLE turns ADD COLUMN messages_json TEXT NOT NULL DEFAULT '[]';  -- messages sent, redacted
ALTER TABLE turns ADD COLUMN tool_calls_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE turns ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN reasoning TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN cost_usd REAL;
ALTER TABLE turns ADD COLUMN error TEXT NOT NULL DEFAULT '';
CREATE TABLE gpu_samples (
    id            INTEGER PRIMARY KEY,
    evaluation_id INTEGER REFERENCES evaluations(id) ON DELETE CASCADE,
    phase         TEXT NOT NULL,                       -- before, after
    gpu_index     INTEGER NOT NULL DEFAULT 0,
    sm_clock_mhz  REAL,
    mem_clock_mhz REAL,
    temperature_c REAL,
    power_w       REAL,
    utilization   REAL,
    throttle_reasons TEXT NOT NULL DEFAULT ''
);
CREATE INDEX gpu_samples_eval ON gpu_samples(evaluation_id);
CREATE TABLE task_validations (
    task_id     INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    device      TEXT NOT NULL,                         -- where the reference was run
    flags_json  TEXT NOT NULL DEFAULT '[]',            -- e.g. ["output_below_tolerance"]
    details_json TEXT NOT NULL DEFAULT '{}',
    checked_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    PRIMARY KEY (task_id, device)
) WITHOUT ROWID;
)SQL",
    // 3: indexes for a database of a million attempts: an attempt's build and evaluation are
    //    found by candidate (and cascading deletes need them), engines by the run they hold.
    R"SQL(
CREATE INDEX builds_candidate ON builds(candidate_id);
CREATE INDEX evaluations_candidate ON evaluations(candidate_id);
CREATE INDEX engines_run ON engines(run_id);
)SQL",
    taskSummariesMigration(),
    // 5: task versions and built-in suites. A task row is never rewritten once a run has used
    //    it: a re-import with another source adds a version and marks it current, and the runs
    //    keep the version they evaluated. (suite_id, task_key) is unique among current versions
    //    only, so the table is rebuilt (foreign keys are off during an upgrade). A built-in suite
    //    (the shipped sample) is marked apart so that it never takes over a user's suite; suites
    //    is rebuilt too rather than altered, so that the step can be applied again to its own
    //    result.
    R"SQL(
CREATE TABLE tasks_v5 (
    id            INTEGER PRIMARY KEY,
    suite_id      INTEGER NOT NULL REFERENCES suites(id) ON DELETE CASCADE,
    task_key      TEXT NOT NULL,                 -- stable id inside the suite
    name          TEXT NOT NULL,
    level         INTEGER NOT NULL CHECK (level BETWEEN 1 AND 4),
    source        TEXT NOT NULL,
    source_hash   TEXT NOT NULL,                 -- sha256 of source
    metadata_json TEXT NOT NULL DEFAULT '{}',    -- ops, validation flags, ...
    version       INTEGER NOT NULL DEFAULT 1,    -- 1, 2, ... per (suite, task_key)
    current       INTEGER NOT NULL DEFAULT 1,    -- 1: the version a new run takes
    UNIQUE (suite_id, task_key, version)
);
INSERT INTO tasks_v5(id, suite_id, task_key, name, level, source, source_hash, metadata_json)
    SELECT id, suite_id, task_key, name, level, source, source_hash, metadata_json FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_v5 RENAME TO tasks;
CREATE INDEX tasks_hash ON tasks(source_hash);
CREATE UNIQUE INDEX tasks_current ON tasks(suite_id, task_key) WHERE current = 1;
CREATE TABLE suites_v5 (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',        -- where it was imported from
    imported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    builtin     INTEGER NOT NULL DEFAULT 0       -- 1: shipped with the program
);
INSERT INTO suites_v5(id, name, description, source, imported_at)
    SELECT id, name, description, source, imported_at FROM suites;
DROP TABLE suites;
ALTER TABLE suites_v5 RENAME TO suites;
)SQL",
    // 6: provider and infrastructure failures get their own verdicts (provider_error,
    //    infra_error): not the model's result, left out of every score (the summaries count
    //    neither as attempted), queued again on resume. SQLite cannot alter a CHECK constraint,
    //    and rebuilding attempts would cascade into its turns, so the constraint's text is
    //    widened in place (the documented procedure for loosening a constraint) and checked.
    R"SQL(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, '''no_candidate'',''harness_error'')',
    '''no_candidate'',''harness_error'',''provider_error'',''infra_error'')')
    WHERE type = 'table' AND name = 'attempts';
PRAGMA writable_schema = RESET;
CREATE TEMP TABLE migration6_check(widened INTEGER NOT NULL CHECK (widened = 1));
INSERT INTO migration6_check SELECT instr(sql, '''infra_error''') > 0 FROM sqlite_schema
    WHERE type = 'table' AND name = 'attempts';
DROP TABLE migration6_check;
)SQL",
    // 7: speedup uncertainty (attempt_timing) and task summaries that carry what fast_p,
    //    the noisy count and the cost need, see speedupUncertaintyMigration().
    speedupUncertaintyMigration(),
    // 8: candidates generated elsewhere (kbstudio-cli import-candidates). The code of each
    //    imported attempt is kept apart from candidates and turns, which an interrupted attempt
    //    loses when it is queued again: the generation step serves it from here. Written so that
    //    the step can be applied again to its own result.
    R"SQL(
CREATE TABLE IF NOT EXISTS imported_candidates (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
    code       TEXT NOT NULL,
    code_hash  TEXT NOT NULL,                  -- sha256 of code
    origin     TEXT NOT NULL DEFAULT ''        -- the file (and line) it was read from
);
)SQL",
    // 9: what the provider says about each answer: the time to its first token (streamed
    //    answers; NULL otherwise) and the model snapshot it names (e.g. a dated version behind
    //    an alias), so that a result is traceable to the exact model that produced it. A table
    //    of its own (one row per turn that has either), so that the step can be applied again.
    R"SQL(
CREATE TABLE IF NOT EXISTS turn_details (
    turn_id        INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
    ttft_ms        REAL,                        -- NULL: not streamed
    model_snapshot TEXT NOT NULL DEFAULT ''
);
)SQL",
};

} // namespace

int currentSchemaVersion() {
    return static_cast<int>(kMigrations.size());
}

int storedSchemaVersion(Connection& conn) {
    Statement hasTable(conn, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND "
                             "name='schema_version'");
    hasTable.step();
    if (hasTable.int64(0) == 0)
        return 0;
    Statement q(conn, "SELECT coalesce(max(version), 0) FROM schema_version");
    q.step();
    return q.int32(0);
}

void migrate(Connection& conn) {
    const auto tooNew = [&](int stored) {
        return SchemaTooNewError("database '" + conn.path() + "' has schema version " +
                                 std::to_string(stored) + ", newer than this program's " +
                                 std::to_string(currentSchemaVersion()) +
                                 "; open it with a newer KernelBench Studio (it was not changed)");
    };
    const int seen = storedSchemaVersion(conn);
    if (seen > currentSchemaVersion())
        throw tooNew(seen);
    if (seen == currentSchemaVersion())
        return;
    // Two processes may open a fresh or older database at once: the upgrade holds the write
    // lock from its first read to its commit, and the version is read again under it, so the
    // second one finds the work done instead of applying a migration twice. Foreign keys are
    // off while tables are rebuilt (SQLite ignores the pragma inside a transaction) and are
    // checked before the commit.
    conn.exec("PRAGMA foreign_keys = OFF");
    try {
        conn.exec("BEGIN EXCLUSIVE");
        try {
            conn.exec("CREATE TABLE IF NOT EXISTS schema_version ("
                      " version INTEGER PRIMARY KEY,"
                      " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))");
            const int stored = storedSchemaVersion(conn);
            if (stored > currentSchemaVersion())
                throw tooNew(stored);
            for (int v = stored + 1; v <= currentSchemaVersion(); ++v) {
                conn.exec(kMigrations[static_cast<size_t>(v - 1)]);
                Statement ins(conn, "INSERT INTO schema_version(version) VALUES (?)");
                ins.bind(1, v).exec();
            }
            Statement fk(conn, "PRAGMA foreign_key_check");
            if (fk.step()) {
                throw Error("upgrading database '" + conn.path() + "' left a row of table '" +
                            fk.text(0) + "' pointing at a missing row of '" + fk.text(2) +
                            "'; the upgrade was rolled back and the database left as it was");
            }
            conn.exec("COMMIT");
        } catch (...) {
            try {
                conn.exec("ROLLBACK");
            } catch (const Error&) {
                // SQLite may already have rolled back (e.g. after an I/O error).
            }
            throw;
        }
    } catch (...) {
        conn.exec("PRAGMA foreign_keys = ON");
        throw;
    }
    conn.exec("PRAGMA foreign_keys = ON");
}

} // namespace kb::db
