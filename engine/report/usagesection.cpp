#include "usagesection.h"

#include "textformat.h"

#include <map>

namespace kb::report {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString latency(std::optional<double> ms) {
    return ms ? QString::number(*ms, 'f', 0) + QStringLiteral(" ms") : QStringLiteral("n/a");
}

const QString kNone = QStringLiteral("\u2014"); // no streamed turn, no snapshot named

QString listOr(const QStringList& items, const QString& none) {
    return items.isEmpty() ? none : items.join(QStringLiteral(", "));
}

QStringList rowOf(const ModelUsage& u) {
    return {q(u.model),
            listOr(u.providers, QStringLiteral("-")),
            listOr(u.hosts, QStringLiteral("local")),
            QString::number(u.attempts),
            QString::number(u.calls),
            QString::number(u.inputTokens),
            QString::number(u.outputTokens),
            QString::number(u.cacheReadTokens),
            QString::number(u.cacheWriteTokens),
            formatCost(u.costUsd),
            latency(u.meanLatencyMs()),
            u.meanTtftMs() ? latency(u.meanTtftMs()) : kNone,
            listOr(u.modelSnapshots, kNone)};
}

const QStringList kHeader{QStringLiteral("Model"),          QStringLiteral("Provider"),
                          QStringLiteral("Host"),           QStringLiteral("Attempts"),
                          QStringLiteral("Calls"),          QStringLiteral("Input tokens"),
                          QStringLiteral("Output tokens"),  QStringLiteral("Cache read"),
                          QStringLiteral("Cache write"),    QStringLiteral("Cost"),
                          QStringLiteral("Mean latency"),   QStringLiteral("Mean TTFT"),
                          QStringLiteral("Model snapshots")};

const QString kNote = QStringLiteral(
    "Sums over every attempt of the selection. Cost is the providers' token prices applied to "
    "each call (\"not priced\" when the model has no price). Mean latency = request time per "
    "call. Mean TTFT = time to first token per streamed call (calls answered without "
    "streaming have none; \u2014 when no call streamed). Model snapshots = the model versions "
    "the provider said answered (\u2014 when it named none).");

} // namespace

QString formatCost(std::optional<double> costUsd) {
    if (!costUsd)
        return QStringLiteral("not priced");
    return QStringLiteral("$") + QString::number(*costUsd, 'f', *costUsd < 1.0 ? 4 : 2);
}

std::vector<ModelUsage> modelUsage(const ReportData& data) {
    std::map<std::string, ModelUsage> byModel;
    for (const auto& [id, a] : data.usageByAttempt) {
        ModelUsage& u = byModel[a.model];
        u.model = a.model;
        const QString provider =
            q(a.provider) + QStringLiteral(" (") + q(a.providerKind) + QLatin1Char(')');
        if (!u.providers.contains(provider))
            u.providers << provider;
        if (!a.baseUrlHost.empty() && !u.hosts.contains(q(a.baseUrlHost)))
            u.hosts << q(a.baseUrlHost);
        ++u.attempts;
        u.calls += a.calls;
        u.inputTokens += a.inputTokens;
        u.outputTokens += a.outputTokens;
        u.cacheReadTokens += a.cacheReadTokens;
        u.cacheWriteTokens += a.cacheWriteTokens;
        u.latencyMs += a.latencyMs;
        u.ttftSumMs += a.ttftSumMs;
        u.ttftTurns += a.ttftTurns;
        for (const auto& snapshot : a.modelSnapshots) {
            if (!u.modelSnapshots.contains(q(snapshot)))
                u.modelSnapshots << q(snapshot);
        }
        if (a.costUsd) {
            u.costUsd = u.costUsd.value_or(0.0) + *a.costUsd;
            ++u.pricedAttempts;
        }
    }
    std::vector<ModelUsage> out;
    for (auto& [model, u] : byModel) {
        u.providers.sort();
        u.hosts.sort();
        u.modelSnapshots.sort();
        out.push_back(std::move(u));
    }
    return out;
}

QString usageMarkdown(const ReportData& data) {
    const auto usage = modelUsage(data);
    if (usage.empty())
        return {};
    QString out = QStringLiteral("## Cost and usage\n\n| ") + kHeader.join(QStringLiteral(" | ")) +
                  QStringLiteral(" |\n| :-- | :-- | :-- |");
    for (qsizetype i = 3; i < kHeader.size() - 1; ++i)
        out += QStringLiteral(" --: |");
    out += QStringLiteral(" :-- |");
    out += QLatin1Char('\n');
    for (const auto& u : usage) {
        QStringList cells = rowOf(u);
        for (auto& c : cells)
            c.replace(QLatin1Char('|'), QStringLiteral("\\|"));
        out += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    }
    return out + QLatin1Char('\n') + kNote + QLatin1Char('\n');
}

QString usageXhtmlSection(const ReportData& data) {
    const auto usage = modelUsage(data);
    QString out = QStringLiteral("<section id=\"usage\">\n<h2>Cost and usage</h2>\n");
    if (usage.empty())
        return out + QStringLiteral("<p>No attempts.</p>\n</section>\n");
    out += QStringLiteral("<table>\n<tr>");
    for (const auto& h : kHeader)
        out += QStringLiteral("<th>") + xmlEscape(h) + QStringLiteral("</th>");
    out += QStringLiteral("</tr>\n");
    for (const auto& u : usage) {
        const QStringList cells = rowOf(u);
        out += QStringLiteral("<tr>");
        for (qsizetype i = 0; i < cells.size(); ++i)
            out += (i < 3 || i == cells.size() - 1 ? QStringLiteral("<td>")
                                                   : QStringLiteral("<td class=\"num\">")) +
                   xmlEscape(cells[i]) + QStringLiteral("</td>");
        out += QStringLiteral("</tr>\n");
    }
    return out + QStringLiteral("</table>\n<p>") + xmlEscape(kNote) +
           QStringLiteral("</p>\n</section>\n");
}

} // namespace kb::report
