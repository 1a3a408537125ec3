#include "attemptextras.h"

#include "db/catalogrepository.h"
#include "db/database.h"
#include "db/evaluationrepository.h"
#include "db/runrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>

namespace kb::gui {

std::vector<BuildError> parseBuildErrors(const std::string& errorsJson, const std::string& log) {
    std::vector<BuildError> out;
    for (const auto& v : QJsonDocument::fromJson(QByteArray::fromStdString(errorsJson)).array()) {
        const QJsonObject o = v.toObject();
        out.push_back({o.value(QStringLiteral("file")).toString(),
                       o.value(QStringLiteral("line")).toInt(),
                       o.value(QStringLiteral("col")).toInt(),
                       o.value(QStringLiteral("message")).toString()});
    }
    if (!out.empty())
        return out;
    static const QRegularExpression gcc(
        QStringLiteral(R"(^([^\s:()]+):(\d+):(?:(\d+):)?\s*(?:fatal )?error:?\s*(.*)$)"));
    static const QRegularExpression nvcc(
        QStringLiteral(R"(^([^\s:()]+)\((\d+)\):\s*error:?\s*(.*)$)"));
    for (const QString& line : QString::fromStdString(log).split(QLatin1Char('\n'))) {
        if (const auto m = gcc.match(line.trimmed()); m.hasMatch())
            out.push_back(
                {m.captured(1), m.captured(2).toInt(), m.captured(3).toInt(), m.captured(4)});
        else if (const auto n = nvcc.match(line.trimmed()); n.hasMatch())
            out.push_back({n.captured(1), n.captured(2).toInt(), 0, n.captured(3)});
        if (out.size() >= 50)
            break;
    }
    return out;
}

AttemptExtrasPtr loadAttemptExtras(const QString& path, db::Id attemptId, QString* error) {
    try {
        db::Database database(path.toStdString(), db::Database::Access::ReadOnly);
        auto& conn = database.connection();
        auto extras = std::make_shared<AttemptExtras>();
        extras->attemptId = attemptId;
        extras->candidates = db::RunRepository(conn).candidates(attemptId);
        std::stable_sort(extras->candidates.begin(), extras->candidates.end(),
                         [](const db::CandidateRow& a, const db::CandidateRow& b) {
                             return a.turnIndex < b.turnIndex;
                         });
        if (const auto attempt = db::RunRepository(conn).attempt(attemptId)) {
            if (const auto task = db::CatalogRepository(conn).task(attempt->taskId))
                extras->referenceSource = QString::fromStdString(task->source);
        }
        db::EvaluationRepository evaluations(conn);
        if (const auto build = evaluations.latestBuild(attemptId))
            extras->buildErrors = parseBuildErrors(build->errorsJson, build->log);
        extras->gpuSamples = evaluations.gpuSamples(
            attemptId, db::EvaluationRepository::GpuSampleScope::LatestEvaluation);
        return extras;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
    }
    return nullptr;
}

AttemptExtrasLoader::AttemptExtrasLoader(QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<kb::gui::AttemptExtrasPtr>();
}

void AttemptExtrasLoader::load(const QString& path, db::Id attemptId) {
    m_tracker.start([path, attemptId]() { return loadAttemptExtras(path, attemptId); },
                    [this](AttemptExtrasPtr extras) { Q_EMIT loaded(extras); });
}

} // namespace kb::gui
