#include "snapshot.h"

#include "analysis/outcomes.h"
#include "db/runrepository.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace kb::gui {

const RunSummary* Snapshot::findRun(db::Id runId) const
{
    const auto it = std::find_if(runs.begin(), runs.end(),
                                 [runId](const RunSummary& r) { return r.run.id == runId; });
    return it == runs.end() ? nullptr : &*it;
}

std::vector<const db::AttemptRow*> Snapshot::attemptsOf(db::Id runId) const
{
    std::vector<const db::AttemptRow*> out;
    for (const auto& a : attempts) {
        if (runId == 0 || a.runId == runId)
            out.push_back(&a);
    }
    return out;
}

const db::AttemptRow* Snapshot::findAttempt(db::Id attemptId) const
{
    const auto it = std::find_if(attempts.begin(), attempts.end(),
                                 [attemptId](const db::AttemptRow& a) { return a.id == attemptId; });
    return it == attempts.end() ? nullptr : &*it;
}

const metrics::Leaderboard* Snapshot::leaderboard(db::Id runId) const
{
    const auto it = leaderboards.find(runId);
    return it == leaderboards.end() ? nullptr : &it->second;
}

namespace {

bool isFinishedStatus(const std::string& status)
{
    return status == "done" || status == "failed" || status == "cancelled";
}

} // namespace

Snapshot readSnapshot(db::Connection& conn)
{
    Snapshot s;
    s.databasePath = QString::fromStdString(conn.path());
    db::RunRepository runs(conn);
    s.attempts = runs.attempts(0);
    for (auto& run : runs.runs()) {
        RunSummary summary;
        summary.run = std::move(run);
        s.runs.push_back(std::move(summary));
    }
    std::sort(s.runs.begin(), s.runs.end(),
              [](const RunSummary& a, const RunSummary& b) { return a.run.id < b.run.id; });
    for (auto& summary : s.runs) {
        for (const auto& a : s.attempts) {
            if (a.runId != summary.run.id)
                continue;
            ++summary.attempts;
            ++summary.statusCounts[a.status];
            if (isFinishedStatus(a.status))
                ++summary.finished;
            else
                ++summary.queued;
            if (a.verdict == "correct")
                ++summary.correct;
            if (a.suspicious && a.review == "none")
                ++summary.suspicious;
            if (a.verdict == "rejected" || a.review == "rejected")
                ++summary.rejected;
        }
        s.leaderboards.emplace(summary.run.id, engine::leaderboardFor(conn, summary.run.id));
    }
    if (!s.runs.empty())
        s.leaderboards.emplace(0, engine::leaderboardFor(conn, 0));
    {
        db::Statement flags(conn, "SELECT t.task_key, v.device, v.flags_json FROM task_validations v JOIN tasks t ON "
                                  "t.id = v.task_id ORDER BY t.task_key, v.device");
        while (flags.step()) {
            const QJsonArray list = QJsonDocument::fromJson(QByteArray::fromStdString(flags.text(2))).array();
            for (const auto& f : list)
                s.taskFlags[flags.text(0)] << QString::fromStdString(flags.text(1)) + QStringLiteral(": ") + f.toString();
        }
    }
    {
        db::Statement costs(conn, "SELECT id, cost_usd FROM attempts WHERE cost_usd IS NOT NULL");
        while (costs.step())
            s.attemptCostUsd[costs.int64(0)] = costs.real(1);
    }
    return s;
}

} // namespace kb::gui
