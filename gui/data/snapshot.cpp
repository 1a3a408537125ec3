#include "snapshot.h"

#include "analysis/outcomes.h"
#include "db/runrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <tuple>

namespace kb::gui {

const RunSummary* Snapshot::findRun(db::Id runId) const {
    const auto it = std::lower_bound(runs.begin(), runs.end(), runId,
                                     [](const RunSummary& r, db::Id id) { return r.run.id < id; });
    return it == runs.end() || it->run.id != runId ? nullptr : &*it;
}

std::int64_t Snapshot::attemptCount(db::Id runId) const {
    std::int64_t n = 0;
    for (const auto& r : runs) {
        if (runId == 0 || r.run.id == runId)
            n += r.attempts;
    }
    return n;
}

std::string Snapshot::scopeVersion(db::Id runId) const {
    if (runId != 0) {
        const RunSummary* run = findRun(runId);
        return run ? run->version : std::string();
    }
    std::string all;
    for (const auto& r : runs)
        all += std::to_string(r.run.id) + ':' + r.version + ';';
    return std::to_string(std::hash<std::string>{}(all));
}

bool Snapshot::hasScope(db::Id runId) const {
    return scope && (scope->everyRun || scope->runId == runId);
}

QStringList Snapshot::modelNames(db::Id runId) const {
    std::set<std::string> names;
    for (const auto& r : runs) {
        if (runId == 0 || r.run.id == runId)
            names.insert(r.models.begin(), r.models.end());
    }
    QStringList out;
    for (const auto& n : names)
        out << QString::fromStdString(n);
    return out;
}

std::vector<const db::AttemptRow*> Snapshot::attemptsOf(db::Id runId) const {
    std::vector<const db::AttemptRow*> out;
    if (!scope || (runId == 0 && !scope->everyRun && scope->runId != 0))
        return out;
    for (const auto& a : scope->attempts) {
        if (runId == 0 || a.runId == runId)
            out.push_back(&a);
    }
    return out;
}

const db::AttemptRow* Snapshot::findAttempt(db::Id attemptId) const {
    if (!scope)
        return nullptr;
    const auto it =
        std::find_if(scope->attempts.begin(), scope->attempts.end(),
                     [attemptId](const db::AttemptRow& a) { return a.id == attemptId; });
    return it == scope->attempts.end() ? nullptr : &*it;
}

const metrics::Leaderboard* Snapshot::leaderboard(db::Id runId) const {
    if (!scope)
        return nullptr;
    const auto it = scope->leaderboards.find(runId);
    return it == scope->leaderboards.end() ? nullptr : &it->second;
}

std::optional<double> Snapshot::costUsd(db::Id attemptId) const {
    if (!scope)
        return std::nullopt;
    const auto it = scope->attemptCostUsd.find(attemptId);
    return it == scope->attemptCostUsd.end() ? std::nullopt : std::optional<double>(it->second);
}

Snapshot Snapshot::withScope(ScopeDataPtr data) const {
    Snapshot s = *this;
    s.scope = std::move(data);
    return s;
}

namespace {

bool isFinishedStatus(const std::string& status) {
    return status == "done" || status == "failed" || status == "cancelled";
}

void readCosts(db::Connection& conn, db::Id runId, ScopeData& data) {
    db::Statement costs(
        conn, runId == 0
                  ? "SELECT id, cost_usd FROM attempts WHERE cost_usd IS NOT NULL"
                  : "SELECT id, cost_usd FROM attempts WHERE run_id = ? AND cost_usd IS NOT NULL");
    if (runId != 0)
        costs.bind(1, runId);
    while (costs.step())
        data.attemptCostUsd[costs.int64(0)] = costs.real(1);
}

// The attempts of a run (0 = every run) in the order RunRepository::attempts gives them (run,
// level, task, model, sample): read in id order through the run index and sorted here, because
// that query's "every run or this one" filter scans the whole table (335 ms instead of 78 ms
// for one run of a million attempts) and sorts every row in SQL.
std::vector<db::AttemptRow> attemptsInGridOrder(db::Connection& conn, db::Id runId) {
    std::vector<db::AttemptRow> rows =
        db::RunRepository(conn).attemptsPage(runId, 0, std::numeric_limits<int>::max());
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&rows](std::size_t x, std::size_t y) {
        const db::AttemptRow& a = rows[x];
        const db::AttemptRow& b = rows[y];
        return std::tie(a.runId, a.level, a.taskKey, a.modelName, a.sampleIndex, a.id) <
               std::tie(b.runId, b.level, b.taskKey, b.modelName, b.sampleIndex, b.id);
    });
    // Applied in place, cycle by cycle: a million rows are not held twice.
    std::vector<bool> placed(rows.size(), false);
    for (std::size_t start = 0; start < rows.size(); ++start) {
        if (placed[start])
            continue;
        db::AttemptRow first = std::move(rows[start]);
        std::size_t at = start;
        while (order[at] != start) {
            rows[at] = std::move(rows[order[at]]);
            placed[at] = true;
            at = order[at];
        }
        rows[at] = std::move(first);
        placed[at] = true;
    }
    return rows;
}

} // namespace

Snapshot readSummaries(db::Connection& conn) {
    Snapshot s;
    s.databasePath = QString::fromStdString(conn.path());
    db::RunRepository repository(conn);
    for (auto& run : repository.runs()) {
        RunSummary summary;
        summary.run = std::move(run);
        s.runs.push_back(std::move(summary));
    }
    std::sort(s.runs.begin(), s.runs.end(),
              [](const RunSummary& a, const RunSummary& b) { return a.run.id < b.run.id; });

    std::map<db::Id, RunSummary*> byId;
    for (auto& summary : s.runs)
        byId[summary.run.id] = &summary;
    const auto summaryOf = [&byId](db::Id runId) -> RunSummary* {
        const auto found = byId.find(runId);
        return found == byId.end() ? nullptr : found->second;
    };
    std::map<db::Id, std::string> details; // what a run's version is made of
    // Three passes that SQLite serves from indexes or in run order, rather than one GROUP BY
    // over every column (twice as slow at a million attempts): status counts from the
    // (run_id, status) index, models from the unique (run_id, model_id, ...) index, and the
    // verdict-level counts per run.
    {
        db::Statement statuses(
            conn, "SELECT run_id, status, count(*) FROM attempts GROUP BY run_id, status");
        while (statuses.step()) {
            RunSummary* summary = summaryOf(statuses.int64(0));
            if (!summary)
                continue;
            const std::string status = statuses.text(1);
            const int count = statuses.int32(2);
            summary->attempts += count;
            summary->statusCounts[status] += count;
            (isFinishedStatus(status) ? summary->finished : summary->queued) += count;
            details[summary->run.id] += status + '=' + std::to_string(count) + ',';
        }
    }
    {
        std::map<db::Id, std::string> modelNames;
        db::Statement models(conn, "SELECT id, name FROM models");
        while (models.step())
            modelNames[models.int64(0)] = models.text(1);
        std::map<db::Id, std::set<std::string>> runModels;
        db::Statement pairs(conn, "SELECT DISTINCT run_id, model_id FROM attempts");
        while (pairs.step())
            runModels[pairs.int64(0)].insert(modelNames[pairs.int64(1)]);
        for (auto& [runId, names] : runModels) {
            if (RunSummary* summary = summaryOf(runId))
                summary->models.assign(names.begin(), names.end());
        }
    }
    {
        // The weighted verdict sum changes when a verdict does, even where no count shows it.
        db::Statement counts(
            conn,
            "SELECT run_id, sum(verdict = 'correct'), sum(suspicious <> 0 AND review = 'none'), "
            "sum(verdict = 'rejected' OR review = 'rejected'), sum(review = 'accepted'), "
            "total(speedup_eager), total(speedup_compile), total(cost_usd), max(id), "
            "sum(instr('pending correct incorrect build_error runtime_error timeout rejected "
            "invalid_candidate no_candidate harness_error provider_error infra_error', verdict)) "
            "FROM attempts GROUP BY run_id");
        while (counts.step()) {
            RunSummary* summary = summaryOf(counts.int64(0));
            if (!summary)
                continue;
            summary->correct = counts.int32(1);
            summary->suspicious = counts.int32(2);
            summary->rejected = counts.int32(3);
            std::string& detail = details[summary->run.id];
            for (int column = 1; column <= 9; ++column)
                detail += counts.text(column) + ',';
        }
    }
    for (auto& summary : s.runs) {
        summary.version = summary.run.status + '|' + std::to_string(summary.attempts) + '|' +
                          std::to_string(std::hash<std::string>{}(details[summary.run.id]));
    }
    {
        db::Statement flags(
            conn,
            "SELECT t.task_key, v.device, v.flags_json FROM task_validations v JOIN tasks t ON "
            "t.id = v.task_id ORDER BY t.task_key, v.device");
        while (flags.step()) {
            const QJsonArray list =
                QJsonDocument::fromJson(QByteArray::fromStdString(flags.text(2))).array();
            for (const auto& f : list)
                s.taskFlags[flags.text(0)]
                    << QString::fromStdString(flags.text(1)) + QStringLiteral(": ") + f.toString();
        }
    }
    return s;
}

ScopeDataPtr readScope(db::Connection& conn, db::Id runId, std::string version) {
    auto data = std::make_shared<ScopeData>();
    data->runId = runId;
    data->version = std::move(version);
    data->attempts = attemptsInGridOrder(conn, runId);
    data->leaderboards.emplace(runId, engine::leaderboardFor(conn, runId));
    readCosts(conn, runId, *data);
    std::vector<const db::AttemptRow*> attempts;
    attempts.reserve(data->attempts.size());
    for (const auto& a : data->attempts)
        attempts.push_back(&a);
    data->grid = std::make_shared<const ResultsGrid>(buildResultsGrid(attempts));
    return data;
}

ScopeDataPtr readEveryScope(db::Connection& conn, std::string version) {
    auto data = std::make_shared<ScopeData>();
    data->runId = 0;
    data->everyRun = true;
    data->version = std::move(version);
    db::RunRepository repository(conn);
    data->attempts = repository.attempts(0);
    const auto runs = repository.runs();
    for (const auto& run : runs)
        data->leaderboards.emplace(run.id, engine::leaderboardFor(conn, run.id));
    if (!runs.empty())
        data->leaderboards.emplace(0, engine::leaderboardFor(conn, 0));
    readCosts(conn, 0, *data);
    return data;
}

Snapshot readSnapshot(db::Connection& conn) {
    Snapshot s = readSummaries(conn);
    s.scope = readEveryScope(conn, s.scopeVersion(0));
    return s;
}

} // namespace kb::gui
