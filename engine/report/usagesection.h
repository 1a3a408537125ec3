#pragma once
// What each model's attempts cost and how fast the provider answered: tokens (with cache reads
// and writes), cost, request latency, provider and base-URL host. Part of the Markdown and
// HTML reports.

#include "reportdata.h"

#include <QString>
#include <optional>
#include <string>
#include <vector>

namespace kb::report {

struct ModelUsage {
    std::string model;
    QStringList providers; // "name (kind)"
    QStringList hosts;     // base-URL hosts, empty for offline providers
    int attempts = 0;
    int calls = 0;
    long long inputTokens = 0;
    long long outputTokens = 0;
    long long cacheReadTokens = 0;
    long long cacheWriteTokens = 0;
    std::optional<double> costUsd; // nullopt when no attempt was priced
    int pricedAttempts = 0;
    double latencyMs = 0;
    std::optional<double> meanLatencyMs() const {
        return calls > 0 ? std::optional<double>(latencyMs / calls) : std::nullopt;
    }
    // Time to first token over the streamed turns of all its attempts (not a mean of means).
    double ttftSumMs = 0;
    int ttftTurns = 0;
    std::optional<double> meanTtftMs() const {
        return ttftTurns > 0 ? std::optional<double>(ttftSumMs / ttftTurns) : std::nullopt;
    }
    QStringList modelSnapshots; // every snapshot the provider named, sorted
};

// One entry per model of data.usageByAttempt, by model name.
std::vector<ModelUsage> modelUsage(const ReportData& data);

// "$0.0123" (four decimals below one dollar), "not priced" when absent.
QString formatCost(std::optional<double> costUsd);

QString usageMarkdown(const ReportData& data);
QString usageXhtmlSection(const ReportData& data);

} // namespace kb::report
