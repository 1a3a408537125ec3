#include "attemptextras.h"

#include "db/database.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

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
        {
            db::Statement s(
                conn, "SELECT id, attempt_id, turn_index, code, code_hash, format FROM candidates "
                      "WHERE attempt_id = ? ORDER BY turn_index, id");
            s.bind(1, attemptId);
            while (s.step())
                extras->candidates.push_back(
                    {s.int64(0), s.int64(1), s.int32(2), s.text(3), s.text(4), s.text(5)});
        }
        {
            db::Statement s(
                conn,
                "SELECT t.source FROM attempts a JOIN tasks t ON t.id = a.task_id WHERE a.id = ?");
            s.bind(1, attemptId);
            if (s.step())
                extras->referenceSource = QString::fromStdString(s.text(0));
        }
        {
            db::Statement s(conn, "SELECT b.errors_json, b.log FROM builds b JOIN candidates c ON "
                                  "c.id = b.candidate_id "
                                  "WHERE c.attempt_id = ? ORDER BY b.id DESC LIMIT 1");
            s.bind(1, attemptId);
            if (s.step())
                extras->buildErrors = parseBuildErrors(s.text(0), s.text(1));
        }
        {
            db::Statement s(
                conn,
                "SELECT g.gpu_index, g.phase, g.sm_clock_mhz, g.mem_clock_mhz, g.temperature_c, "
                "g.power_w, g.utilization, g.throttle_reasons FROM gpu_samples g WHERE "
                "g.evaluation_id = "
                "(SELECT max(id) FROM evaluations WHERE attempt_id = ?) ORDER BY g.gpu_index, "
                "g.id");
            s.bind(1, attemptId);
            while (s.step()) {
                GpuSample g;
                g.gpuIndex = s.int32(0);
                g.phase = s.text(1);
                g.smClockMhz = s.optReal(2);
                g.memClockMhz = s.optReal(3);
                g.temperatureC = s.optReal(4);
                g.powerW = s.optReal(5);
                g.utilization = s.optReal(6);
                g.throttleReasons = s.text(7);
                extras->gpuSamples.push_back(std::move(g));
            }
        }
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
