#include "snapshot.h"

#include "analysis/outcomes.h"
#include "db/catalogrepository.h"
#include "db/overviewrepository.h"
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
    // Three passes rather than one aggregate over every column (twice as slow at a million
    // attempts): status counts, the models of each run, and the verdict-level figures per run.
    db::OverviewRepository overview(conn);
    for (const auto& c : overview.attemptStatusCounts()) {
        RunSummary* summary = summaryOf(c.runId);
        if (!summary)
            continue;
        summary->attempts += c.count;
        summary->statusCounts[c.status] += c.count;
        (db::isFinished(db::attemptStatusFromString(c.status)) ? summary->finished
                                                               : summary->queued) += c.count;
        details[summary->run.id] += c.status + '=' + std::to_string(c.count) + ',';
    }
    for (auto& [runId, names] : overview.modelsPerRun()) {
        if (RunSummary* summary = summaryOf(runId))
            summary->models = std::move(names);
    }
    for (const auto& t : overview.attemptTotals()) {
        RunSummary* summary = summaryOf(t.runId);
        if (!summary)
            continue;
        summary->correct = t.correct;
        summary->suspicious = t.suspicious;
        summary->rejected = t.rejected;
        details[summary->run.id] += t.fingerprint;
    }
    for (auto& summary : s.runs) {
        summary.version = summary.run.status + '|' + std::to_string(summary.attempts) + '|' +
                          std::to_string(std::hash<std::string>{}(details[summary.run.id]));
    }
    for (const auto& v : db::CatalogRepository(conn).validationFlags()) {
        const QJsonArray list =
            QJsonDocument::fromJson(QByteArray::fromStdString(v.flagsJson)).array();
        for (const auto& f : list)
            s.taskFlags[v.taskKey]
                << QString::fromStdString(v.device) + QStringLiteral(": ") + f.toString();
    }
    return s;
}

ScopeDataPtr readScope(db::Connection& conn, db::Id runId, std::string version) {
    auto data = std::make_shared<ScopeData>();
    data->runId = runId;
    data->version = std::move(version);
    data->attempts = attemptsInGridOrder(conn, runId);
    data->leaderboards.emplace(runId, engine::leaderboardFor(conn, runId));
    data->attemptCostUsd = db::OverviewRepository(conn).attemptCosts(runId);
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
    data->attemptCostUsd = db::OverviewRepository(conn).attemptCosts(0);
    return data;
}

Snapshot readSnapshot(db::Connection& conn) {
    Snapshot s = readSummaries(conn);
    s.scope = readEveryScope(conn, s.scopeVersion(0));
    return s;
}

} // namespace kb::gui
