#include "publishedbaseline.h"

#include "baselineimport.h"
#include "db/sqlite.h"

#include <QRegularExpression>
#include <algorithm>

namespace kb::report {

namespace {

QStringList nameTokens(const QString& name) {
    static const QRegularExpression separators(QStringLiteral("[^A-Z0-9]+"));
    static const QStringList vendors{QStringLiteral("NVIDIA"), QStringLiteral("GEFORCE"),
                                     QStringLiteral("TESLA"), QStringLiteral("QUADRO")};
    QStringList tokens;
    for (const auto& t : name.toUpper().split(separators, Qt::SkipEmptyParts)) {
        if (!vendors.contains(t))
            tokens << t;
    }
    return tokens;
}

bool hasDigit(const QString& s) {
    return std::any_of(s.begin(), s.end(), [](QChar c) { return c.isDigit(); });
}

bool hasLetter(const QString& s) {
    return std::any_of(s.begin(), s.end(), [](QChar c) { return c.isLetter(); });
}

QString keyOf(const QStringList& tokens) {
    for (qsizetype i = 0; i < tokens.size(); ++i) {
        if (!hasDigit(tokens[i]))
            continue;
        if (!hasLetter(tokens[i]) && i > 0 && !hasDigit(tokens[i - 1]))
            return tokens[i - 1] + tokens[i];
        return tokens[i];
    }
    return {};
}

} // namespace

QString gpuModelKey(const QString& deviceName) {
    return keyOf(nameTokens(deviceName));
}

std::map<db::Id, std::string> environmentGpuNames(db::Connection& conn) {
    std::map<db::Id, std::string> out;
    db::Statement q(conn, "SELECT id, device_name, device FROM environments");
    while (q.step())
        out.emplace(q.int64(0), q.text(1).empty() ? q.text(2) : q.text(1));
    return out;
}

PublishedBaselines::PublishedBaselines(db::Connection& conn) {
    const std::string eager = std::string(kPublishedSettingsPrefix) + ";eager";
    db::Statement q(conn, "SELECT task_hash, device, eager_median_ms FROM baselines "
                          "WHERE settings_key = ? AND eager_median_ms > 0 ORDER BY device, id");
    q.bind(1, eager);
    while (q.step()) {
        Row r;
        r.device = q.text(1);
        r.tokens = nameTokens(QString::fromStdString(r.device));
        r.key = keyOf(r.tokens);
        r.ms = q.real(2);
        if (!r.key.isEmpty())
            m_byHash[q.text(0)].push_back(std::move(r));
    }
    if (m_byHash.empty())
        return;
    db::Statement t(conn, "SELECT id, source_hash FROM tasks");
    while (t.step())
        m_hashByTask.emplace(t.int64(0), t.text(1));
}

std::optional<PublishedComparison>
PublishedBaselines::compare(db::Id taskId, const std::string& gpuName,
                            std::optional<double> candidateMedianMs) const {
    if (!candidateMedianMs || !(*candidateMedianMs > 0))
        return std::nullopt;
    const auto hash = m_hashByTask.find(taskId);
    if (hash == m_hashByTask.end())
        return std::nullopt;
    const auto rows = m_byHash.find(hash->second);
    if (rows == m_byHash.end())
        return std::nullopt;
    const QStringList tokens = nameTokens(QString::fromStdString(gpuName));
    const QString key = keyOf(tokens);
    if (key.isEmpty())
        return std::nullopt;
    const Row* best = nullptr;
    int bestShared = -1;
    for (const auto& r : rows->second) { // by device name
        if (r.key != key)
            continue;
        int shared = 0;
        for (const auto& t : r.tokens)
            shared += tokens.contains(t) ? 1 : 0;
        if (shared > bestShared) {
            best = &r;
            bestShared = shared;
        }
    }
    if (!best)
        return std::nullopt;
    return PublishedComparison{best->device, best->ms, best->ms / *candidateMedianMs};
}

} // namespace kb::report
